"""Restarts and withdrawals of a league's bots, counted once for the whole league
(docs/design.md §5): a bot that crashes, or fails to start, spends one restart; after
``max_restarts`` it is withdrawn, wherever its games are played.

The league owns one :class:`LeagueCounts`. On one machine the bot pool counts into it as
failures happen; on a cluster the coordinator counts each finished game's record
(:func:`restarts_in`) and tells the workers which bots are withdrawn, and a worker's pool
asks an object of the same :class:`Counts` shape that only reads that decision.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from typing import Protocol

from referee.game.records import GameRecord


class Counts(Protocol):
    """What a bot pool asks of the league's counts."""

    def is_withdrawn(self, name: str) -> bool:
        """Whether the bot ``name`` is withdrawn (its seats are played by the referee)."""
        ...

    def count_failure(self, name: str) -> None:
        """The bot ``name`` crashed or failed to start: one restart spent."""
        ...


class LeagueCounts:
    """Restarts spent per bot and the withdrawals they cause, for one league.

    ``spent``: bot -> restarts already spent (a resumed league's stored games,
    ``ResultsStore.restart_counts``). ``remote``: bots given by address, which the referee
    neither starts nor restarts: never counted, never withdrawn."""

    def __init__(self, max_restarts: int, spent: Mapping[str, int] | None = None, *, remote: Collection[str] = ()) -> None:
        self.max_restarts = max_restarts
        self._remote = frozenset(remote)
        self._spent: Counter[str] = Counter({name: count for name, count in (spent or {}).items() if name not in self._remote})

    def spent(self, name: str) -> int:
        """Restarts the bot ``name`` has spent in this league."""
        return self._spent[name]

    def is_withdrawn(self, name: str) -> bool:
        return self._spent[name] > self.max_restarts

    def withdrawn(self) -> frozenset[str]:
        """Every bot withdrawn so far."""
        return frozenset(name for name, count in self._spent.items() if count > self.max_restarts)

    def count_failure(self, name: str, times: int = 1) -> None:
        if name not in self._remote:
            self._spent[name] += times

    def count_record(self, record: GameRecord) -> None:
        """Count the restarts a finished game cost its bots (:func:`restarts_in`)."""
        for name, times in restarts_in(record).items():
            self.count_failure(name, times)


def restarts_in(record: GameRecord) -> dict[str, int]:
    """bot -> restarts one finished game cost it, as ``ResultsStore.restart_counts`` counts
    them over stored games: one per ``startup`` or ``protocol`` fault, one for a crash."""
    counts: Counter[str] = Counter()
    crashed: set[str] = set()
    for fault in record.faults:
        if fault.kind in ("startup", "protocol"):
            counts[fault.bot] += 1
        elif fault.kind == "crash":
            crashed.add(fault.bot)
    counts.update(crashed)
    return dict(counts)
