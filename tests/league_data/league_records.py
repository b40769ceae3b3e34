"""Hand-built GameRecords for the league data tests (the engine is not needed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.game.rules import Rules


def game_record(
    game_id: str,
    seats: Sequence[str],
    placements: Sequence[int],
    *,
    fixture: int = 0,
    faults: Sequence[FaultRecord] = (),
    actions: Sequence[ActionRecord] = (),
    withdrawn: Sequence[bool] = (),
    league: str = "demo",
) -> GameRecord:
    """A finished game: the winner is the seat placed 1 (if only one is)."""
    firsts = [seat for seat, place in enumerate(placements) if place == 1]
    return GameRecord(
        game_id=game_id,
        league=league,
        fixture=fixture,
        table=tuple(seats),
        deal=0,
        rotation=0,
        seats=tuple(seats),
        rules=Rules().as_dict(),
        seed=fixture * 7919 + 1,
        first_dealer=0,
        decks=[["AS", "KS"]],
        actions=list(actions),
        faults=list(faults),
        placements=tuple(placements),
        winner=firsts[0] if len(firsts) == 1 else None,
        knocked_out_round=tuple(None if place == 1 else 7 - place for place in placements),
        forfeited=tuple(False for _ in seats),
        rounds=[{"trump": "H", "chooser": None}],
        withdrawn=tuple(withdrawn),
    )


def rotated(record: GameRecord, game_id: str, *, fixture: int) -> GameRecord:
    """The deal's next rotation after ``record`` (seats and placements turned by one, no
    actions or faults): storing every rotation finishes the deal, so the site shows its
    games (a game is held back while its deal has a rotation to play, docs/design.md §7)."""
    turn = (record.rotation + 1) % len(record.table)
    seats = record.table[turn:] + record.table[:turn]
    placements = tuple(record.placements[record.seats.index(name)] for name in seats)
    return replace(
        record, game_id=game_id, fixture=fixture, rotation=turn, seats=seats, placements=placements,
        actions=[], faults=[], winner=seats.index(record.seats[record.winner]) if record.winner is not None else None,
        knocked_out_round=tuple(record.knocked_out_round[record.seats.index(name)] for name in seats),
    )  # fmt: skip
