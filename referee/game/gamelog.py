"""Turn a finished game and its match result into a :class:`GameRecord`. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.game.cards import parse_card
from referee.game.engine import Game, RoundRecord, replay
from referee.game.records import ActionRecord, FaultRecord, GameRecord, OverloadRecord, stored_faults
from referee.game.rules import Rules
from referee.game.views import parse_action


def round_summary(record: RoundRecord) -> dict[str, Any]:
    """The public summary of one round for the game record (issue 3 §2)."""
    return {
        "round": record.round_number,
        "dealer": record.dealer,
        "hand_size": record.hand_size,
        "turn_up": str(record.turn_up) if record.turn_up else None,
        "trump": record.trump.letter if record.trump is not None else None,
        "no_trump": record.no_trump,
        "trump_chooser": record.trump_chooser,
        "hands": [[str(card) for card in hand] for hand in record.hands],
        "tricks": [
            {
                "leader": trick.leader,
                "plays": [[play.seat, str(play.card) if play.card else None] for play in trick.plays],
                "winner": trick.winner,
            }
            for trick in record.tricks
        ],
        "tricks_won": list(record.tricks_won),
        "knocked_out": list(record.knocked_out),
        "dogs": list(record.dogs),
        "forfeited": list(record.forfeited),
    }


def build_record(
    game: Game,
    *,
    league: str,
    fixture: int,
    table: Sequence[str],
    deal: int,
    rotation: int,
    seats: Sequence[str],
    seed: int,
    actions: list[ActionRecord],
    faults: list[FaultRecord],
    withdrawn: Sequence[bool] = (),
    forfeits: Sequence[tuple[int, int]] = (),
    overloads: Sequence[OverloadRecord] = (),
) -> GameRecord:
    """A GameRecord of a finished ``game``, its ``faults`` bounded as stored
    (:func:`referee.game.records.stored_faults`). Raises ValueError if the game is not over.

    >>> from referee.game.views import format_action
    >>> game = Game(3, Rules(), seed=2, game_id="g1")
    >>> actions = []
    >>> while not game.over:
    ...     seat, action = game.to_act, game.legal_actions()[0]
    ...     actions.append(ActionRecord(seat, game.decision().value, format_action(action), ms=5.0))
    ...     game.apply(seat, action)
    >>> record = build_record(game, league="demo", fixture=0, table=("ann", "bo", "cy"), deal=0, rotation=0,
    ...                       seats=("ann", "bo", "cy"), seed=2, actions=actions, faults=[])
    >>> record.placements, len(record.decks), record.rounds[0]["trump"]
    ((1, 3, 2), 3, 'D')
    >>> GameRecord.from_json(record.to_json()) == record, rerun(record).outcome == game.outcome
    (True, True)
    """
    outcome = game.outcome
    if outcome is None:
        raise ValueError(f"game {game.game_id} is not over")
    rounds = game.rounds
    return GameRecord(
        game_id=game.game_id,
        league=league,
        fixture=fixture,
        table=tuple(table),
        deal=deal,
        rotation=rotation,
        seats=tuple(seats),
        rules=game.rules.as_dict(),
        seed=seed,
        first_dealer=game.first_dealer,
        decks=[[str(card) for card in r.deck] for r in rounds],
        actions=actions,
        faults=stored_faults(faults),
        placements=outcome.placements,
        winner=outcome.winner,
        knocked_out_round=outcome.knocked_out_round,
        forfeited=outcome.forfeited,
        rounds=[round_summary(r) for r in rounds],
        withdrawn=tuple(withdrawn) or tuple(False for _ in seats),
        forfeits=list(forfeits),
        overloads=list(overloads),
    )


def rerun(record: GameRecord) -> Game:
    """Feed a record's actions back through the engine (docs/design.md §2); the rebuilt game.

    Raises IllegalAction naming the first action that does not replay, ConfigError for
    a record whose setup is invalid.
    """
    decks = {number: [parse_card(card) for card in deck] for number, deck in enumerate(record.decks, start=1)}
    return replay(
        len(record.seats),
        Rules.from_dict(record.rules),
        record.seed,
        record.first_dealer,
        decks,
        [(action.seat, parse_action(action.action)) for action in record.actions],
        record.game_id,
        forfeits=record.forfeits,
    )
