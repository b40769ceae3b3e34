"""Time control: per-decision limits, grace and a per-game time bank (docs/design.md §5).

Pure arithmetic on milliseconds measured by the caller; no clock is read here.

A decision may take ``move_ms``. The referee adds ``grace_ms`` (its own jitter; never
announced to bots). Time beyond ``move_ms + grace_ms`` is an *overrun*; it is paid from
the seat's bank (``bank_ms`` per game). A decision is a timeout when its overrun is larger
than what is left in the bank. So the deadline of a decision is
``move_ms + grace_ms + bank_left_ms``.

A late decision is judged on :class:`Evidence` (docs/design.md §5, "A loaded machine"):
only a delay the bot did not cause is excused, and :meth:`SeatClock.judge`, the one rule
for every command, charges the bot the rest (its own time) and says when a decision must
be asked again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

MAX_ASKS = 4
"""How often one decision may be asked when each missing answer was the machine's
(docs/design.md §5): the last ask is charged as usual, whatever the evidence. Only asks the
bot received count."""

Verdict = Literal["in time", "excused", "ask again", "timeout"]
""":meth:`SeatClock.judge`: ``in time``; ``excused`` (late by the referee's clock, in time
on the bot's own time: accepted); ``ask again`` (no answer, and the machine kept the bot
from the time it was told: ask the same decision again); ``timeout``."""


def starved_ms(tasks: Iterable[tuple[float, float]], cpu_ms: float = 0.0) -> float:
    """How long, at least, the bot was runnable with none of its tasks on a core, in ms
    (docs/design.md §5): ``tasks`` gives each task's (ms on a core, ms runnable waiting for
    one) during one ask; ``cpu_ms`` the CPU all of them used, where it is known better
    (finished threads and reaped children included). One task's wait overlapped the
    others' running by at most the CPU the others used, so the rest of its wait is time
    in which no task of the bot ran: the machine's. The bot's tasks waiting behind each
    other never count, and the result never exceeds one task's wait (so never the
    decision's wall time).

    >>> starved_ms([(2.0, 900.0), (1.0, 0.0)])  # one thread kept off the cores by others
    899.0
    >>> starved_ms([(300.0, 600.0)] * 6)  # six spinners on two cores, alone: their own doing
    0.0
    >>> starved_ms([(5.0, 700.0)], cpu_ms=400.0)  # children, now reaped, ran 395 ms of it
    305.0
    """
    pairs = list(tasks)
    total = max(cpu_ms, sum(run for run, _ in pairs))
    return max([0.0, *(wait - (total - run) for run, wait in pairs)])


@dataclass(frozen=True)
class Evidence:
    """What the referee saw while one ask was out: only delays the bot did not cause, in ms
    (docs/design.md §5, "A loaded machine").

    ``unsent_ms``: the referee stalled from the ask's start, so the request left late;
    ``unread_ms``: an answer there that the referee did not read (its asking thread waiting
    for a core, or a stall of the referee going on when the ask ended); ``starved_ms``: the
    bot runnable with none of its tasks on a core (:func:`starved_ms`), 0 when unknown (a
    bot given by address); ``bot_cpu_ms``: the CPU all of the bot's tasks used (None when
    unknown), reported, never an excuse; ``received``: False when the bot never got the
    request (the referee stalled, or the bot ran not at all, for the whole ask): that ask
    is not counted.

    Load on the machine alone is no evidence: a bot busy with its own work (asleep, still
    at an earlier request, its own tasks keeping each other waiting) shows none of these.
    """

    unsent_ms: float = 0.0
    unread_ms: float = 0.0
    starved_ms: float = 0.0
    bot_cpu_ms: float | None = None
    received: bool = True

    @classmethod
    def recorded(cls, machine_ms: float) -> Evidence:
        """The evidence a game record keeps of an ask: only the machine's share (``referee
        replay`` settles the clock with it as the match did).

        >>> Evidence.recorded(300.0).machine_ms(1000.0)
        300.0
        """
        return cls(unread_ms=machine_ms)

    def machine_ms(self, wall_ms: float) -> float:
        """The machine's share of an ask that took ``wall_ms`` by the referee's clock: never
        more than the ask's own wall time.

        >>> Evidence(unsent_ms=100.0, unread_ms=50.0, starved_ms=30.0).machine_ms(1000.0)
        180.0
        >>> Evidence(unread_ms=900.0, starved_ms=900.0).machine_ms(1000.0)
        1000.0
        """
        share = max(0.0, self.unsent_ms) + max(0.0, self.unread_ms) + max(0.0, self.starved_ms)
        return min(max(0.0, wall_ms), share)


@dataclass(frozen=True)
class Judgement:
    """One ask judged (:meth:`SeatClock.judge`): the ``verdict``; ``charged_ms``, the bot's own
    time (the wall time less the machine's share); ``machine_ms``, the machine's share."""

    verdict: Verdict
    charged_ms: float
    machine_ms: float = 0.0


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

    @property
    def limit_ms(self) -> float:
        """What the next decision may take before it is a timeout: move + grace + bank left."""
        return self.control.move_ms + self.control.grace_ms + self.bank_left_ms

    @property
    def told_ms(self) -> float:
        """The time the bot is told it has for the next decision: ``time_left_ms`` + ``bank_left_ms``."""
        return self.control.move_ms + self.bank_left_ms

    def judge(self, wall_ms: float, fault: str | None, evidence: Evidence | None, *, last_ask: bool = True) -> Judgement:
        """Settle one ask (docs/design.md §5, the table of "A loaded machine"): the one rule
        of check-bot, ``referee play``, a league and ``referee replay --seat``.

        ``wall_ms``: the ask's time by the referee's clock; ``fault``: the transport's
        (``"timeout"``: no answer by the deadline; any other reply, a fault or not, is an
        answer in hand); ``evidence``: the machine's share (None: nothing is excused).

        - By the wall clock within :attr:`limit_ms`: ``in time``; the bank pays any overrun.
        - Late with an answer in hand: the bot is charged its own time, ``wall_ms`` less the
          machine's share; within the limit it is ``excused`` (the bank pays the charged
          overrun), else a ``timeout``.
        - No answer by the deadline: when the bot's own time was short of the time it was
          told (:attr:`told_ms`, the limit less the grace the referee keeps for itself), the
          machine kept it from answering: ``ask again`` (nothing spent), unless this is the
          ``last_ask``; else a ``timeout``.

        A timeout empties the bank.

        >>> clock = TimeControl(move_ms=1000, grace_ms=100).clock()
        >>> clock.judge(900, None, None)
        Judgement(verdict='in time', charged_ms=900, machine_ms=0.0)
        >>> clock.judge(1400, None, Evidence(unread_ms=600.0))  # 600 ms the machine's
        Judgement(verdict='excused', charged_ms=800.0, machine_ms=600.0)
        >>> clock.judge(1100, "timeout", Evidence(starved_ms=400.0), last_ask=False)  # 700 ms of its own
        Judgement(verdict='ask again', charged_ms=700.0, machine_ms=400.0)
        >>> clock.judge(1400, None, None)
        Judgement(verdict='timeout', charged_ms=1400.0, machine_ms=0.0)
        """
        if self.control.unlimited:
            return Judgement("in time", wall_ms)
        if fault != "timeout" and wall_ms <= self.limit_ms:
            self.settle(wall_ms)
            return Judgement("in time", wall_ms)
        machine = evidence.machine_ms(wall_ms) if evidence is not None else 0.0
        own = max(0.0, wall_ms - machine)
        if fault != "timeout" and own <= self.limit_ms:
            self.settle(own)
            return Judgement("excused", own, machine)
        if fault == "timeout" and own < self.told_ms and not last_ask:
            return Judgement("ask again", own, machine)
        self.bank_left_ms = 0
        return Judgement("timeout", own, machine)
