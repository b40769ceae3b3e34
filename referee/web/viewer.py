"""The game viewer's steps: a stored game, trick by trick. Pure.

A :class:`GameRecord` keeps, per round, every seat's hand as dealt and every trick's plays
(:func:`referee.game.gamelog.round_summary`). :func:`game_steps` turns that into the steps the
web viewer shows: per round one step for the deal (and trump), one per trick, then one
for the end of the game. Each step carries every seat's cards *still held* after it;
:func:`visible_hands` hides the other seats' cards from a seat's point of view until the
game is over (docs/design.md §2: a seat sees only its own hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.game.records import GameRecord


@dataclass(frozen=True)
class TrickPlay:
    """One card of a trick: ``card`` in text form (``"AS"``), None when the seat had none."""

    seat: int
    card: str | None


@dataclass(frozen=True)
class Step:
    """One view of the table.

    ``kind`` is ``"deal"``, ``"trick"`` or ``"over"``; ``round`` is 1-based (0 for the end);
    ``trick`` is 1-based within the round (0 unless ``kind == "trick"``); ``plays`` the
    trick's cards in the order played; ``hands[seat]`` the cards that seat holds after
    the step (text form, dealt order); ``tricks_won[seat]`` within the round so far;
    ``notes`` lines such as who named trump, who was knocked out.
    """

    number: int
    kind: str
    round: int
    trick: int
    title: str
    trump: str | None  # suit letter; None before it is known or under no trump
    no_trump: bool
    turn_up: str | None
    leader: int | None
    plays: tuple[TrickPlay, ...]
    winner: int | None
    hands: tuple[tuple[str, ...], ...]
    tricks_won: tuple[int, ...]
    notes: tuple[str, ...]

    @property
    def final(self) -> bool:
        return self.kind == "over"


def game_steps(record: GameRecord) -> list[Step]:
    """Every step of ``record`` in order: per round a deal step and one step per trick,
    then a final ``"over"`` step (hands empty, placements in its notes)."""
    seats = len(record.seats)
    steps: list[Step] = []
    for number, summary in enumerate(record.rounds, start=1):
        steps.extend(_round_steps({"round": number, **summary}, seats, first_number=len(steps)))
    steps.append(
        Step(
            number=len(steps),
            kind="over",
            round=0,
            trick=0,
            title="Game over",
            trump=None,
            no_trump=False,
            turn_up=None,
            leader=None,
            plays=(),
            winner=record.winner,
            hands=tuple(() for _ in range(seats)),
            tricks_won=tuple(0 for _ in range(seats)),
            notes=tuple(placement_notes(record)),
        )
    )
    return steps


def _round_steps(summary: dict[str, Any], seats: int, *, first_number: int) -> list[Step]:
    number = int(summary["round"])
    dealt = summary.get("hands", [])
    held = [list(hand) for hand in dealt] + [[] for _ in range(seats - len(dealt))]
    trump = summary.get("trump")
    no_trump = bool(summary.get("no_trump"))
    deal_notes = [f"seat {summary.get('dealer')} deals {summary.get('hand_size')} cards"]
    dogs = [seat for seat, hand in enumerate(dealt) if len(hand) == 1 and summary.get("hand_size") != 1]
    if dogs:
        deal_notes.append("dog's life: " + ", ".join(f"seat {seat}" for seat in dogs) + " (one card)")
    chooser = summary.get("trump_chooser")
    if no_trump:
        deal_notes.append(f"seat {chooser} declares no trump" if chooser is not None else "no trump")
    elif chooser is not None and trump:
        deal_notes.append(f"seat {chooser} names trump {trump}")
    elif summary.get("turn_up"):
        deal_notes.append(f"turn-up {summary['turn_up']} makes trump {trump}")
    turn_up = summary.get("turn_up")
    steps = [
        Step(
            number=first_number,
            kind="deal",
            trick=0,
            title=f"Round {number}: the deal",
            leader=None,
            plays=(),
            winner=None,
            hands=tuple(tuple(hand) for hand in held),
            tricks_won=tuple(0 for _ in range(seats)),
            notes=tuple(deal_notes),
            round=number,
            trump=trump,
            no_trump=no_trump,
            turn_up=turn_up,
        )
    ]
    won = [0] * seats
    tricks = summary.get("tricks", [])
    for index, trick in enumerate(tricks, start=1):
        plays = tuple(TrickPlay(int(seat), card) for seat, card in trick["plays"])
        for play in plays:
            if play.card is not None and play.card in held[play.seat]:
                held[play.seat].remove(play.card)
        winner = trick.get("winner")
        if winner is not None:
            won[int(winner)] += 1
        notes = [f"seat {winner} wins the trick"] if winner is not None else []
        if index == len(tricks):
            notes.extend(_round_end_notes(summary))
        steps.append(
            Step(
                number=first_number + index,
                kind="trick",
                trick=index,
                title=f"Round {number}, trick {index}",
                leader=trick.get("leader"),
                plays=plays,
                winner=winner,
                hands=tuple(tuple(hand) for hand in held),
                tricks_won=tuple(won),
                notes=tuple(notes),
                round=number,
                trump=trump,
                no_trump=no_trump,
                turn_up=turn_up,
            )
        )
    return steps


def _round_end_notes(summary: dict[str, Any]) -> list[str]:
    notes = ["round over: tricks " + ", ".join(f"seat {seat} {count}" for seat, count in enumerate(summary.get("tricks_won", [])))]
    for key, label in (("knocked_out", "knocked out"), ("dogs", "dog's life next round"), ("forfeited", "forfeited")):
        seats = summary.get(key) or []
        if seats:
            notes.append(f"{label}: " + ", ".join(f"seat {seat}" for seat in seats))
    return notes


def placement_notes(record: GameRecord) -> list[str]:
    """``"1. heuristic (seat 2)"`` lines, best placement first (equal placements share a number)."""
    order = sorted(range(len(record.seats)), key=lambda seat: (record.placements[seat], seat))
    return [f"{record.placements[seat]}. {record.seats[seat]} (seat {seat})" for seat in order]


def visible_hands(step: Step, seat: int | None) -> tuple[tuple[str, ...] | int, ...]:
    """What a viewer at ``seat`` sees of the hands at ``step``: its own cards, and for
    every other seat only how many cards it holds (an int), until the game is over.
    ``seat=None`` (the all-hands view of a finished game) sees every hand."""
    if seat is None or step.final:
        return step.hands
    return tuple(hand if other == seat else len(hand) for other, hand in enumerate(step.hands))


def dealt_hands(record: GameRecord) -> list[tuple[int, Sequence[Sequence[str]]]]:
    """(round number, every seat's hand as dealt) for every round: shown once the game is over."""
    return [(int(summary.get("round", number)), summary.get("hands", [])) for number, summary in enumerate(record.rounds, start=1)]
