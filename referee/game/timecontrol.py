"""Time control: per-decision limits, grace and a per-game time bank (docs/design.md §5).

Pure arithmetic on milliseconds measured by the caller; no clock is read here.

A decision may take ``move_ms``. The referee adds ``grace_ms`` (its own jitter; never
announced to bots). Time beyond ``move_ms + grace_ms`` is an *overrun*; it is paid from
the seat's bank (``bank_ms`` per game). A decision is a timeout when its overrun is larger
than what is left in the bank. So the deadline of a decision is
``move_ms + grace_ms + bank_left_ms``.

A late decision is judged on :class:`Evidence` (docs/design.md §5, "A loaded machine"):
time in which the machine kept the referee or the bot from running is not the bot's.
:meth:`SeatClock.judge` charges the rest, and says when a decision must be asked again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_ASKS = 4
"""How often one decision may be asked when each late answer was the machine's
(docs/design.md §5): the last ask is charged as usual, whatever the evidence."""

Verdict = Literal["in time", "excused", "ask again", "timeout"]
""":meth:`SeatClock.judge`: ``in time``; ``excused`` (late by the clock, in time on the
bot's own time: accepted, not charged); ``ask again`` (no answer, but the bot did not get
its time: ask the same decision again); ``timeout``."""


@dataclass(frozen=True)
class Evidence:
    """What the referee saw while one decision was asked, all in ms (docs/design.md §5).

    ``referee_late_ms``: time the referee itself could not run (its game thread waiting
    for a CPU, its heartbeat waking late); ``bot_wait_ms``: time the bot's processes were
    runnable but waiting for a CPU; ``bot_cpu_ms``: CPU time they used. The bot's figures
    are None when they cannot be read (a bot given by address)."""

    referee_late_ms: float
    bot_wait_ms: float | None = None
    bot_cpu_ms: float | None = None

    def excused_ms(self, move_ms: int) -> float:
        """The time that was the machine's, not the bot's: 0 when the bot used ``move_ms``
        of CPU (it used its time: a busy bot is judged as before), else the referee's
        lateness plus the bot's waiting for a CPU.

        >>> Evidence(referee_late_ms=120.0, bot_wait_ms=30.0, bot_cpu_ms=10.0).excused_ms(1000)
        150.0
        >>> Evidence(referee_late_ms=120.0, bot_wait_ms=30.0, bot_cpu_ms=1000.0).excused_ms(1000)
        0.0
        """
        if self.bot_cpu_ms is not None and self.bot_cpu_ms >= move_ms:
            return 0.0
        return max(0.0, self.referee_late_ms) + max(0.0, self.bot_wait_ms or 0.0)


@dataclass(frozen=True)
class TimeControl:
    """Limits in ms. ``unlimited`` (the ``debug`` preset) turns every deadline off."""

    move_ms: int = 1000
    grace_ms: int = 100
    bank_ms: int = 0
    startup_ms: int = 10_000
    unlimited: bool = False

    def clock(self) -> SeatClock:
        """A fresh clock for one seat in one game."""
        return SeatClock(self, self.bank_ms)


@dataclass
class SeatClock:
    """One seat's clock in one game: what is left in its bank (ms)."""

    control: TimeControl
    bank_left_ms: float

    @property
    def deadline_s(self) -> float | None:
        """The RPC deadline for the next decision in seconds, or None without limits.

        >>> TimeControl(move_ms=1000, grace_ms=100, bank_ms=500).clock().deadline_s
        1.6
        >>> print(TimeControl(unlimited=True).clock().deadline_s)
        None
        """
        if self.control.unlimited:
            return None
        return (self.control.move_ms + self.control.grace_ms + self.bank_left_ms) / 1000

    def settle(self, elapsed_ms: float) -> bool:
        """Charge one decision that took ``elapsed_ms``; True when it is a timeout.

        An overrun within the bank shrinks the bank by the overrun and is no timeout.
        A timeout leaves the bank empty.

        >>> clock = TimeControl(move_ms=1000, grace_ms=100, bank_ms=500).clock()
        >>> clock.settle(1300), clock.bank_left_ms  # 200 ms over move + grace: the bank pays
        (False, 300)
        >>> clock.settle(1500), clock.bank_left_ms  # 400 ms over, 300 ms left: a timeout
        (True, 0)
        """
        if self.control.unlimited:
            return False
        overrun = elapsed_ms - self.control.move_ms - self.control.grace_ms
        if overrun <= 0:
            return False
        if overrun <= self.bank_left_ms:
            self.bank_left_ms -= overrun
            return False
        self.bank_left_ms = 0
        return True

    def settle_reply(self, elapsed_ms: float, transport_fault: str | None) -> bool:
        """Charge one decision as the referee judges it (docs/design.md §5); True for a timeout.

        Every reply is charged, whatever it holds: the clock is settled before anything
        else is judged, so a malformed answer (or a crash) that came after
        ``move_ms + grace_ms`` spends the bank exactly as a legal one does, and is a
        timeout when the bank cannot pay. ``transport_fault == "timeout"`` (the gRPC
        deadline, which included the whole bank, passed) spends the whole bank.
        """
        if transport_fault == "timeout":
            self.bank_left_ms = 0
            return True
        return self.settle(elapsed_ms)

    @property
    def limit_ms(self) -> float:
        """What the next decision may take before it is a timeout: move + grace + bank left."""
        return self.control.move_ms + self.control.grace_ms + self.bank_left_ms

    def judge(
        self, elapsed_ms: float, transport_fault: str | None, evidence: Evidence | None, *, last_ask: bool = True
    ) -> tuple[Verdict, float]:
        """Settle one ask (docs/design.md §5) -> (verdict, the ms charged to the bot).

        In time: settled as :meth:`settle_reply` does. Late (after :attr:`limit_ms`, or
        no answer by the deadline): the ``evidence`` excuses the time that was the
        machine's (:meth:`Evidence.excused_ms`), and the bot is charged the rest. An
        answer whose charged time fits the limit is ``excused`` (the bank pays the
        charged overrun); no answer while the bot was charged less than ``move_ms`` is
        ``ask again`` (nothing spent), unless this is the ``last_ask``. Otherwise, and
        without evidence, it is a ``timeout`` (the bank is emptied).

        >>> clock = TimeControl(move_ms=1000, grace_ms=100).clock()
        >>> clock.judge(900, None, None)
        ('in time', 900)
        >>> clock.judge(1400, None, Evidence(referee_late_ms=600.0, bot_cpu_ms=50.0))  # 600 ms the machine's
        ('excused', 800.0)
        >>> clock.judge(1400, None, None)
        ('timeout', 1400)
        """
        if self.control.unlimited:
            return "in time", elapsed_ms
        late = transport_fault == "timeout" or elapsed_ms > self.limit_ms
        if not late:
            self.settle(elapsed_ms)
            return "in time", elapsed_ms
        excused = evidence.excused_ms(self.control.move_ms) if evidence is not None else 0.0
        charged = max(0.0, elapsed_ms - excused)
        if excused > 0 and transport_fault == "timeout" and charged < self.control.move_ms and not last_ask:
            return "ask again", charged
        if excused > 0 and transport_fault != "timeout" and charged <= self.limit_ms:
            self.settle(charged)
            return "excused", charged
        self.bank_left_ms = 0
        return "timeout", elapsed_ms
