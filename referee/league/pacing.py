"""Games at once paced to the machine (docs/design.md §5, "A loaded machine"): when the
referee finds itself late (its heartbeat, :mod:`referee.league.lateness`), it plays fewer
games at once, one fewer per check, down to one; when it has been on time for a while it
plays more again, up to the league's ``concurrency``."""

from __future__ import annotations

from dataclasses import dataclass

import trio

from referee.league.lateness import Heartbeat, heartbeat

CHECK_S = 1.0  # how often the pace is checked
WINDOW_S = 5.0  # the recent time judged at each check
SLOW_DOWN = 0.20  # the share of the window the referee was stalled that lowers the pace
SPEED_UP = 0.05  # ... below which, for CALM_CHECKS checks in a row, it rises again
CALM_CHECKS = 3


@dataclass(frozen=True)
class Pace:
    """Games at once now (``games``, 1-``most``) and checks in a row found calm."""

    games: int
    most: int
    calm: int = 0

    def next(self, late_fraction: float) -> Pace:
        """The pace after a check that found the referee stalled ``late_fraction`` (0-1)
        of the recent window. Pure."""
        if late_fraction >= SLOW_DOWN:
            return Pace(max(1, self.games - 1), self.most, 0)
        if late_fraction < SPEED_UP:
            calm = self.calm + 1
            if calm >= CALM_CHECKS and self.games < self.most:
                return Pace(self.games + 1, self.most, 0)
            return Pace(self.games, self.most, calm)
        return Pace(self.games, self.most, 0)


class Pacer:
    """A limit on the games played at once that follows :class:`Pace`. ``async with
    pacer.slot():`` around each game; run :meth:`keep_pace` beside the games."""

    def __init__(self, most: int, beat: Heartbeat | None = None) -> None:
        self.pace = Pace(max(1, most), max(1, most))
        self.limiter = trio.CapacityLimiter(self.pace.games)
        self._beat = beat
        self.lowest = self.pace.games  # the fewest games at once it came down to (bench, tests)

    def slot(self) -> trio.CapacityLimiter:
        return self.limiter

    async def keep_pace(self) -> None:
        """Check the pace every :data:`CHECK_S` seconds until cancelled."""
        beat = self._beat or heartbeat()
        while True:
            await trio.sleep(CHECK_S)
            self.pace = self.pace.next(beat.late_fraction(WINDOW_S))
            if self.pace.games != self.limiter.total_tokens:
                self.limiter.total_tokens = self.pace.games
                self.lowest = min(self.lowest, self.pace.games)
