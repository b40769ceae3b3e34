"""Time control: per-decision limits, grace and a per-game time bank (docs/design.md §5).

Pure arithmetic on milliseconds measured by the caller; no clock is read here.

A decision may take ``move_ms``. The referee adds ``grace_ms`` (its own jitter; never
announced to bots). Time beyond ``move_ms + grace_ms`` is an *overrun*; it is paid from
the seat's bank (``bank_ms`` per game). A decision is a timeout when its overrun is larger
than what is left in the bank. So the deadline of a decision is
``move_ms + grace_ms + bank_left_ms``.
"""

from __future__ import annotations

from dataclasses import dataclass


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
        """The RPC deadline for the next decision in seconds, or None without limits."""
        if self.control.unlimited:
            return None
        return (self.control.move_ms + self.control.grace_ms + self.bank_left_ms) / 1000

    def settle(self, elapsed_ms: float) -> bool:
        """Charge one decision that took ``elapsed_ms``; True when it is a timeout.

        An overrun within the bank shrinks the bank by the overrun and is no timeout.
        A timeout leaves the bank empty.
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
