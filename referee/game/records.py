"""Game records: what the store keeps of a finished game, as plain JSON-able data.

Pure. A record holds everything needed to replay the game exactly (docs/design.md §2:
seats, rules, seed, first dealer, deck order of every round, every action) and the
evidence of every fault (docs/design.md §5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

FaultKind = Literal["startup", "protocol", "timeout", "malformed", "illegal", "crash"]
FAULT_KINDS: tuple[FaultKind, ...] = ("startup", "protocol", "timeout", "malformed", "illegal", "crash")
DETAIL_BYTES = 1024  # a stored fault's detail and answer: at most this many bytes of the bot's text
EVIDENCE_PER_SEAT = 3  # faults of one seat in one game stored with their request and answer


@dataclass(frozen=True)
class FaultRecord:
    """One fault: its kind, where it happened and the evidence.

    ``decision`` is the game-wide 0-based decision number (None for startup faults);
    ``request`` the request the bot was sent (JSON text of the protobuf, "" if none);
    ``answer`` what it answered, or the gRPC status / exit code / signal; ``ms`` the
    measured time of the decision; ``detail`` one line a student can act on.
    """

    kind: FaultKind
    seat: int
    bot: str
    decision: int | None
    detail: str
    request: str = ""
    answer: str = ""
    ms: float | None = None


def cut(text: str, limit: int = DETAIL_BYTES) -> str:
    """``text`` as stored: unchanged when its UTF-8 takes at most ``limit`` bytes, else its
    first ``limit`` bytes (whole characters) and ``… [cut: N bytes in all]``.

    >>> cut("no answer"), cut("ééé", limit=4)
    ('no answer', 'éé… [cut: 6 bytes in all]')
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    kept = data[:limit].decode("utf-8", "ignore")
    return f"{kept}… [cut: {len(data)} bytes in all]"


def stored_faults(faults: Sequence[FaultRecord]) -> list[FaultRecord]:
    """The faults of one game as the results file keeps them (docs/design.md §5): each
    ``detail`` and ``answer`` cut to :data:`DETAIL_BYTES` (:func:`cut`); a seat's faults
    after its first :data:`EVIDENCE_PER_SEAT` in the game keep their kind, decision, time
    and detail but not the request and answer (their counts are whole). A bot that faults
    on purpose cannot grow the file by more than a few KB per game.

    >>> faults = [FaultRecord("timeout", 0, "slow", decision, "no answer", request="{...}") for decision in range(4)]
    >>> [fault.request for fault in stored_faults(faults)]
    ['{...}', '{...}', '{...}', '']
    """
    kept: list[FaultRecord] = []
    per_seat: dict[int, int] = {}
    for fault in faults:
        count = per_seat[fault.seat] = per_seat.get(fault.seat, 0) + 1
        evidence = count <= EVIDENCE_PER_SEAT
        kept.append(
            replace(
                fault,
                detail=cut(fault.detail),
                request=fault.request if evidence else "",
                answer=cut(fault.answer) if evidence else "",
            )
        )
    return kept


@dataclass(frozen=True)
class ActionRecord:
    """One decision: ``action`` in text form ("AS", "trump H", "trump NT", "pass"),
    ``ms`` the time the bot took (None for a seat played by the referee), and the fault
    if the action is the fallback."""

    seat: int
    kind: str  # DecisionKind value
    action: str
    ms: float | None
    fault: FaultKind | None = None


def asked_again_note(asks: int) -> str:
    """What "asked N times" means, in the words a student reads (docs/design.md §5).

    >>> asked_again_note(3)
    'asked 3 times (the referee asks a decision again, with a fresh deadline, when the machine, not the bot, kept the bot from the time it was told; at most 4 times)'
    """
    return (
        f"asked {asks} times (the referee asks a decision again, with a fresh deadline, when the machine, not the bot, "
        "kept the bot from the time it was told; at most 4 times)"
    )


@dataclass(frozen=True)
class OverloadRecord:
    """A decision the machine held up (docs/design.md §5): a late answer excused, a
    decision asked again, or every ask held up.

    ``decision`` the game-wide decision number; ``asks`` how often the bot received it
    (the last answer counted); ``ms`` the time of each ask by the referee's clock;
    ``excused_ms`` per ask, the machine's share (the referee stalled, an answer not read,
    the bot kept off every core); ``charged_ms`` the bot's own time on the last ask (its
    bank pays any overrun); ``timed_out``: the last ask was still charged a timeout
    (its fault says why)."""

    seat: int
    bot: str
    decision: int
    asks: int
    ms: tuple[float, ...]
    excused_ms: tuple[float, ...]
    charged_ms: float
    timed_out: bool = False

    @property
    def detail(self) -> str:
        """One line for the bot's log and ``referee faults``.

        >>> OverloadRecord(seat=1, bot="quin", decision=12, asks=1, ms=(1450.0,), excused_ms=(900.0,), charged_ms=550.0).detail
        "referee overloaded: decision 12 took 1,450 ms by the referee's clock, of which the machine (not the bot) held it up 900 ms; not charged (its answer was accepted)"
        """
        took = ", ".join(f"{ms:,.0f}" for ms in self.ms)
        excused = ", ".join(f"{ms:,.0f}" for ms in self.excused_ms)
        asked = asked_again_note(self.asks) if self.asks > 1 else ""
        if self.timed_out:
            outcome = f"{asked}; still charged a timeout at the last ask (its fault says why)" if asked else "charged a timeout (its fault says why)"
        else:
            outcome = f"not charged ({asked})" if asked else "not charged (its answer was accepted)"
        return (
            f"referee overloaded: decision {self.decision} took {took} ms by the referee's clock, of which the machine "
            f"(not the bot) held it up {excused} ms; {outcome}"
        )


@dataclass
class GameRecord:
    """A finished game. ``seats[i]`` is the bot name at seat i."""

    game_id: str
    league: str
    fixture: int  # index in the schedule
    table: tuple[str, ...]  # the table's bots, in the fixture's base order
    deal: int  # deal number at this table
    rotation: int  # seat rotation of this deal
    seats: tuple[str, ...]
    rules: dict[str, Any]
    seed: int
    first_dealer: int
    decks: list[list[str]]  # per round, the 52 cards in deal order
    actions: list[ActionRecord]
    faults: list[FaultRecord]
    placements: tuple[int, ...]
    winner: int | None
    knocked_out_round: tuple[int | None, ...]
    forfeited: tuple[bool, ...]
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per-round summary: trump, chooser, trick winners, dogs, knock-outs
    withdrawn: tuple[bool, ...] = ()
    forfeits: list[tuple[int, int]] = field(default_factory=list)  # (action index, seat): the seat forfeited just before that action
    overloads: list[OverloadRecord] = field(default_factory=list)  # decisions the machine held up (docs/design.md §5)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-ready data (what the store keeps): equal to
        ``dataclasses.asdict(self)`` but without its deep copy, which cost ~3 ms a game on
        the trio thread (``make bench``, B4). The result shares lists with the record:
        serialize it, do not change it."""
        data = dict(self.__dict__)
        data["actions"] = [dict(action.__dict__) for action in self.actions]
        data["faults"] = [dict(fault.__dict__) for fault in self.faults]
        data["overloads"] = [dict(overload.__dict__) for overload in self.overloads]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        data = dict(data)
        data["actions"] = [ActionRecord(**a) for a in data["actions"]]
        data["faults"] = [FaultRecord(**f) for f in data["faults"]]
        data["forfeits"] = [tuple(pair) for pair in data.get("forfeits", [])]
        data["overloads"] = [
            OverloadRecord(**{**o, "ms": tuple(o["ms"]), "excused_ms": tuple(o["excused_ms"])}) for o in data.get("overloads", [])
        ]
        for key in ("table", "seats", "placements", "knocked_out_round", "forfeited", "withdrawn"):
            data[key] = tuple(data.get(key, ()))
        return cls(**data)
