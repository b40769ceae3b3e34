"""The evidence gathered around each ask of a decision (docs/design.md §5): how late the
referee was (:mod:`referee.league.lateness`) and how the bot's processes spent the time
(:mod:`referee.sandbox.cputime`). The judgement itself is pure:
:meth:`referee.game.timecontrol.SeatClock.judge`.

One :class:`DecisionProbe` per bot process (or connection); :meth:`DecisionProbe.mark` before
the call, :meth:`DecisionProbe.evidence` after it: a few µs each, whatever path asked (a
unary ``Decide`` or a stream)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from referee.game.timecontrol import Evidence
from referee.league.lateness import Heartbeat, heartbeat, thread_wait_ms
from referee.sandbox.cputime import Sample, TaskClock

REFRESH_EVERY_S = 1.0  # a bot's task list is walked again at most this often (s): a walk reads /proc per task, ~1 ms


@dataclass(frozen=True)
class Mark:
    """The clocks just before an ask: monotonic s, the asking thread's wait (ms), the bot's tasks."""

    started: float
    thread_wait_ms: float
    bot: Sample | None


class DecisionProbe:
    """Evidence for the asks of one bot process: ``pid`` the process the referee started
    (None for a bot given by address: only the referee's side is known)."""

    def __init__(self, pid: int | None, beat: Heartbeat | None = None) -> None:
        self._clock = TaskClock(pid) if pid is not None else None
        self._beat = beat or heartbeat()
        self._refreshed = time.monotonic()

    def refresh(self) -> None:
        """Watch the bot's tasks started since (call between games, not during an ask); at
        most once per :data:`REFRESH_EVERY_S` (a bot's threads start with it or with its
        first games, and a league plays many short games)."""
        now = time.monotonic()
        if self._clock is not None and now - self._refreshed >= REFRESH_EVERY_S:
            self._clock.refresh()
            self._refreshed = now

    def mark(self) -> Mark:
        """Read the clocks on the asking thread just before the call."""
        return Mark(time.monotonic(), thread_wait_ms(), self._clock.sample() if self._clock is not None else None)

    def evidence(self, mark: Mark) -> Evidence:
        """What happened since ``mark``, on the same thread, just after the call returned."""
        ended = time.monotonic()
        own = thread_wait_ms() - mark.thread_wait_ms
        stalled = self._beat.late_ms(mark.started, ended)
        if self._clock is None or mark.bot is None:
            return Evidence(referee_late_ms=max(own, stalled))
        cpu, wait = TaskClock.used(mark.bot, self._clock.sample())
        return Evidence(referee_late_ms=max(own, stalled), bot_wait_ms=wait, bot_cpu_ms=cpu)

    def close(self) -> None:
        if self._clock is not None:
            self._clock.close()
