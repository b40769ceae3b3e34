"""The game viewer's model: a stored game, trick by trick, as one JSON record. Pure.

A :class:`GameRecord` keeps, per round, every seat's hand as dealt and every trick's plays
(:func:`referee.game.gamelog.round_summary`), and every decision in order with the fault,
if any, that made the referee play it (``GameRecord.actions``). :func:`game_steps` turns
that into the steps the viewer shows: per round one step for the deal (and trump), one per
trick, then one for the end of the game, numbered from 1 (the number in the page's address
is the number it shows). Each step carries every seat's cards *still held* after it, and
each card the referee played for a bot is marked: with its fault (:class:`FaultMark`), or
as a seat no bot played (a bot that forfeited, crashed or was withdrawn).

:func:`viewer_record` is the JSON the browser draws every view from (the page's script
hides the other seats' cards from a seat's point of view until the game is over:
docs/design.md §3); :func:`visible_hands` is the same rule, for tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.game.records import ActionRecord, FaultRecord, GameRecord


@dataclass(frozen=True)
class TrickPlay:
    """One card of a trick: ``card`` in text form (``"AS"``), None for a dog's pass.
    ``fault``: the index (in :attr:`Step` order of the game's faults) of the fault after
    which the referee played it; ``by_referee``: the referee played it for a seat no bot
    played (forfeited, crashed, withdrawn) without a fault of its own."""

    seat: int
    card: str | None
    fault: int | None = None
    by_referee: bool = False


@dataclass(frozen=True)
class FaultMark:
    """A fault as the viewer shows it: ``index`` in the record's faults, the step it
    happened at (1-based; the first step for a fault before the game), the decision number
    (None before the game), and ``played``: the move the referee played for the bot
    (``"7S"``, ``"trump H"``, ``"pass"``), None when none was asked yet."""

    index: int
    seat: int
    bot: str
    kind: str
    decision: int | None
    step: int
    played: str | None
    detail: str
    answer: str
    ms: float | None


@dataclass(frozen=True)
class Step:
    """One view of the table.

    ``number`` is 1-based; ``kind`` is ``"deal"``, ``"trick"`` or ``"over"``; ``round`` is
    1-based (0 for the end); ``trick`` is 1-based within the round (0 unless
    ``kind == "trick"``); ``plays`` the trick's cards in the order played; ``hands[seat]``
    the cards that seat holds after the step (text form, dealt order); ``tricks_won[seat]``
    within the round so far; ``notes`` lines such as who named trump, who was knocked out;
    ``faults`` the indexes of the faults shown at this step.
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
    faults: tuple[int, ...] = ()

    @property
    def final(self) -> bool:
        return self.kind == "over"


class _Decisions:
    """Walks the record's decisions in game order (docs/design.md §5: one per trump choice
    and per card or pass played)."""

    def __init__(self, record: GameRecord) -> None:
        self.actions: Sequence[ActionRecord] = record.actions
        self.number = 0
        self.fault_at = {fault.decision: index for index, fault in enumerate(record.faults) if fault.decision is not None}

    def take(self) -> tuple[int, int | None, bool]:
        """(decision number, its fault index or None, played by the referee without a fault)."""
        number = self.number
        self.number += 1
        action = self.actions[number] if number < len(self.actions) else None
        fault = self.fault_at.get(number)
        return number, fault, fault is None and action is not None and action.ms is None


def game_steps(record: GameRecord) -> list[Step]:
    """Every step of ``record`` in order, numbered from 1: per round a deal step and one
    step per trick, then a final ``"over"`` step (hands empty, placements in its notes).
    A fault is shown at the step of its decision; one before the game at the first step."""
    seats = len(record.seats)
    decisions = _Decisions(record)
    steps: list[Step] = []
    fault_step: dict[int, int] = {}
    for number, summary in enumerate(record.rounds, start=1):
        steps.extend(_round_steps({"round": number, **summary}, seats, decisions, first_number=len(steps) + 1, fault_step=fault_step))
    steps.append(
        Step(
            number=len(steps) + 1,
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
    for index, fault in enumerate(record.faults):
        if index not in fault_step:  # before the game, or a decision the rounds do not show
            fault_step[index] = 1 if fault.decision is None else steps[-1].number
    by_step: dict[int, list[int]] = {}
    for index, number in sorted(fault_step.items()):
        by_step.setdefault(number, []).append(index)
    return [_with_faults(step, tuple(by_step.get(step.number, ()))) for step in steps]


def _with_faults(step: Step, faults: tuple[int, ...]) -> Step:
    if not faults:
        return step
    fields = dict(step.__dict__)
    fields["faults"] = faults
    return Step(**fields)


def _round_steps(
    summary: dict[str, Any], seats: int, decisions: _Decisions, *, first_number: int, fault_step: dict[int, int]
) -> list[Step]:
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
    by = ""
    if chooser is not None:
        _, fault, by_referee = decisions.take()
        if fault is not None:
            fault_step[fault] = first_number
            by = " (the referee chose for it after a fault)"
        elif by_referee:
            by = " (the referee chose for it)"
    if no_trump:
        deal_notes.append(f"seat {chooser} declares no trump{by}" if chooser is not None else "no trump")
    elif chooser is not None and trump:
        deal_notes.append(f"seat {chooser} names trump {trump}{by}")
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
        plays = []
        for seat, card in trick["plays"]:
            _, fault, by_referee = decisions.take()
            if fault is not None:
                fault_step[fault] = first_number + index
            plays.append(TrickPlay(int(seat), card, fault, by_referee))
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
                plays=tuple(plays),
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


def fault_marks(record: GameRecord, steps: Sequence[Step]) -> list[FaultMark]:
    """Every fault of ``record`` with the step it is shown at and the move the referee
    played for the bot."""
    step_of = {index: step.number for step in steps for index in step.faults}
    marks = []
    for index, fault in enumerate(record.faults):
        played = None
        if fault.decision is not None and fault.decision < len(record.actions):
            played = record.actions[fault.decision].action
        marks.append(_mark(index, fault, step_of.get(index, 1), played))
    return marks


def _mark(index: int, fault: FaultRecord, step: int, played: str | None) -> FaultMark:
    return FaultMark(index, fault.seat, fault.bot, fault.kind, fault.decision, step, played, fault.detail, fault.answer, fault.ms)


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


def viewer_record(record: GameRecord, *, bot_pages: Sequence[str], fault_ids: Sequence[str]) -> dict[str, Any]:
    """The JSON the viewer draws every view of ``record`` from: seats, placements, the
    steps (:func:`game_steps`), the faults (:func:`fault_marks`) and the hands as dealt.
    ``bot_pages[seat]`` is the link to that seat's bot page, ``fault_ids[index]`` the anchor
    of that fault there. Fault texts are as recorded (the caller words them for students)."""
    steps = game_steps(record)
    return {
        "game": record.game_id,
        "seats": list(record.seats),
        "bot_pages": list(bot_pages),
        "placements": list(record.placements),
        "winner": record.winner,
        "steps": [_step_json(step) for step in steps],
        "faults": [
            {**_compact(mark.__dict__), "href": f"{bot_pages[mark.seat]}#{fault_ids[mark.index]}"}
            for mark in fault_marks(record, steps)
        ],
        "dealt": [[number, [list(hand) for hand in hands]] for number, hands in dealt_hands(record)],
    }


def _step_json(step: Step) -> dict[str, Any]:
    data = _compact(step.__dict__)
    data["plays"] = [_compact(play.__dict__) for play in step.plays]
    data["hands"] = [list(hand) for hand in step.hands]
    data["tricks_won"] = list(step.tricks_won)
    data["notes"] = list(step.notes)
    data["faults"] = list(step.faults)
    return data


def _compact(fields: dict[str, Any]) -> dict[str, Any]:
    """Without the keys that hold nothing (None, False, empty): a smaller page."""
    return {key: value for key, value in fields.items() if not (value is None or value is False or (isinstance(value, (tuple, list)) and not value))}
