"""Games at once paced to the machine (docs/design.md §5, "A loaded machine"): while the
machine holds up the bots' decisions (late answers excused as its, or asked again: the
:class:`~referee.league.lateness.HeldUp` the pacer owns, one per league, which its games
note), the league plays fewer games at once, one fewer
per check, down to one; once no decision has been held up for a while it plays more
again, up to its ``concurrency``. Other programs keeping the machine busy without holding
up a decision do not slow the league down (bench/NOTES.md, B12)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import trio

from referee.league.lateness import HeldUp

CHECK_S = 1.0  # how often the pace is checked
WINDOW_S = 5.0  # the recent time judged at each check
SLOW_DOWN = 2  # decisions held up in the window that lower the pace
CALM_CHECKS = 5  # checks in a row with none held up in the window before it rises again


@dataclass(frozen=True)
class Pace:
    """Games at once now (``games``, 1-``most``) and checks in a row found calm."""

    games: int
    most: int
    calm: int = 0

    def next(self, held: int) -> Pace:
        """The pace after a check that found ``held`` decisions held up by the machine in
        the recent window. Pure."""
        if held >= SLOW_DOWN:
            return Pace(max(1, self.games - 1), self.most, 0)
        if held == 0:
            calm = self.calm + 1
            if calm >= CALM_CHECKS and self.games < self.most:
                return Pace(self.games + 1, self.most, 0)
            return Pace(self.games, self.most, calm)
        return Pace(self.games, self.most, 0)


class Pacer:
    """A limit on the games played at once that follows :class:`Pace`. ``async with
    pacer.slot():`` around each game; run :meth:`keep_pace` beside the games. ``held``:
    the league's record of decisions held up (a new one by default); its games note in it."""

    def __init__(self, most: int, held: HeldUp | None = None) -> None:
        self.pace = Pace(max(1, most), max(1, most))
        self.limiter = trio.CapacityLimiter(self.pace.games)
        self.held = held if held is not None else HeldUp()
        self.lowest = self.pace.games  # the fewest games at once it came down to (bench, tests)

    def slot(self) -> trio.CapacityLimiter:
        return self.limiter

    async def keep_pace(self) -> None:
        """Check the pace every :data:`CHECK_S` seconds until cancelled."""
        while True:
            await trio.sleep(CHECK_S)
            self.pace = self.pace.next(self.held.since(time.monotonic() - WINDOW_S))
            if self.pace.games != self.limiter.total_tokens:
                self.limiter.total_tokens = self.pace.games
                self.lowest = min(self.lowest, self.pace.games)
