"""The evidence gathered around each ask of a decision (docs/design.md §5, "A loaded
machine"): only a delay the bot did not cause. The referee's side
(:mod:`referee.league.lateness`): a stall of the referee when the ask began (the request
left late) or when it ended (an answer there was not read), and the asking thread's own
wait for a core once an answer is in. The bot's side (:mod:`referee.sandbox.cputime`): the
time it was runnable with none of its tasks on a core, every task counted. The judgement
itself is pure: :meth:`referee.game.timecontrol.SeatClock.judge`.

One :class:`DecisionProbe` per bot process (or connection); :meth:`DecisionProbe.mark`
before every ask (a few µs), :meth:`DecisionProbe.evidence` after a late one only."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from referee.game.timecontrol import Evidence
from referee.league.lateness import Heartbeat, heartbeat, thread_wait_ms
from referee.sandbox.cputime import BotClock, Sample

REFRESH_EVERY_S = 1.0  # a bot's clocks are opened again at most this often (s): a walk reads /proc per task, ~1 ms


@dataclass(frozen=True)
class Mark:
    """The clocks just before an ask: monotonic s, the asking thread's wait (ms), the bot's clocks."""

    started: float
    thread_wait_ms: float
    bot: Sample | None


class DecisionProbe:
    """Evidence for the asks of one bot process: ``pid`` the process the referee started
    (None for a bot given by address: only the referee's side is known), ``cgroup`` its
    cgroup v2 leaf where it has one."""

    def __init__(self, pid: int | None, beat: Heartbeat | None = None, *, cgroup: Path | None = None) -> None:
        self._clock = BotClock(pid, cgroup) if pid is not None else None
        self._beat = beat or heartbeat()
        self._refreshed = time.monotonic()

    def refresh(self) -> None:
        """Keep open the clocks of the bot's tasks started since (call between games, not
        during an ask); at most once per :data:`REFRESH_EVERY_S`. Tasks started later are
        found when a late ask is judged."""
        now = time.monotonic()
        if self._clock is not None and now - self._refreshed >= REFRESH_EVERY_S:
            self._clock.refresh()
            self._refreshed = now

    def mark(self) -> Mark:
        """Read the clocks on the asking thread just before the call."""
        return Mark(time.monotonic(), thread_wait_ms(), self._clock.sample() if self._clock is not None else None)

    def evidence(self, mark: Mark, *, answered: bool) -> Evidence:
        """What held up the ask begun at ``mark``, on the same thread, just after the call
        returned. ``answered``: whether an answer came (a reply of any kind); only then can
        the asking thread's wait for a core have kept it from reading one."""
        ended = time.monotonic()
        own_wait = max(0.0, thread_wait_ms() - mark.thread_wait_ms) if answered else 0.0
        unsent, unread = self._beat.edges_ms(mark.started, ended)
        if self._clock is None or mark.bot is None:  # the referee stalled from the ask's start to its end: nothing left
            received = unsent < (ended - mark.started) * 1000.0 - 1.0
            return Evidence(unsent_ms=unsent, unread_ms=max(own_wait, unread), received=received)
        used = self._clock.used(mark.bot)
        return Evidence(
            unsent_ms=unsent,
            unread_ms=max(own_wait, unread),
            starved_ms=used.starved_ms,
            bot_cpu_ms=used.cpu_ms,
            received=used.ran,  # a bot that ran not at all never read the request
        )

    def close(self) -> None:
        if self._clock is not None:
            self._clock.close()
