"""The referee's own lateness: when the machine, not a bot, held a decision up
(docs/design.md §5, "A loaded machine").

Two measures, both cheap enough for every decision:

- :func:`thread_wait_ms`: how long the calling thread has been runnable but waiting for a
  CPU (its ``/proc/thread-self/schedstat``, kept open per thread and read with one
  ``pread``). A game's thread waits there when the bot's reply has arrived but no core
  is free to read it.
- :class:`Heartbeat`: a thread that sleeps :data:`TICK_S` at a time and notes how late it
  wakes. A late wake-up means the whole referee could not run: no core for its threads,
  its interpreter lock held by a thread the machine had stopped, the process stopped. A
  decision's share of those stalls is :meth:`Heartbeat.late_ms`; the share of recent time
  lost is :meth:`Heartbeat.late_fraction`.
- :class:`HeldUp`: when decisions were held up by the machine (excused, asked again), one
  per league, which paces it (:mod:`referee.league.pacing`).

Neither raises; where ``/proc`` is missing :func:`thread_wait_ms` is 0.
"""

from __future__ import annotations

import bisect
import collections
import threading
import time

from referee.sandbox.cputime import read_schedstat

TICK_S = 0.01  # the heartbeat's sleep
LATE_S = 0.003  # a wake-up later than this is a stall (sleep's own jitter is ~0.1 ms)
EDGE_S = TICK_S + LATE_S  # a stall this near an ask's start or end holds up its request or its answer
KEEP = 4096  # stalls remembered (at least the last ~40 s of a fully stalled referee)

_local = threading.local()


def thread_wait_ms() -> float:
    """The calling thread's total time runnable but waiting for a CPU, in ms (0.0 where
    it cannot be read). Take the difference of two calls."""
    fd = getattr(_local, "schedstat", None)
    if fd is None:
        import os

        try:
            fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            fd = -1
        _local.schedstat = fd
    if fd < 0:
        return 0.0
    clocks = read_schedstat(fd)
    return clocks[1] / 1e6 if clocks is not None else 0.0


class Heartbeat:
    """A daemon thread measuring how late the referee's threads get to run. Start it once
    (:meth:`start`, idempotent); it runs for the life of the process."""

    def __init__(self, tick_s: float = TICK_S, late_s: float = LATE_S) -> None:
        self.tick_s = tick_s
        self.late_s = late_s
        self._lock = threading.Lock()
        self._ends: collections.deque[float] = collections.deque(maxlen=KEEP)  # monotonic s, ascending
        self._starts: collections.deque[float] = collections.deque(maxlen=KEEP)
        self._thread: threading.Thread | None = None
        self._woke = threading.Condition(self._lock)
        self._last_woke = time.monotonic()

    def start(self) -> Heartbeat:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._beat, name="referee heartbeat", daemon=True)
                self._thread.start()
        return self

    def _beat(self) -> None:
        tick, late = self.tick_s, self.late_s
        while True:
            asleep = time.monotonic()
            time.sleep(tick)
            woke = time.monotonic()
            with self._lock:
                if woke - asleep - tick > late:
                    self._starts.append(asleep + tick)
                    self._ends.append(woke)
                self._last_woke = woke
                self._woke.notify_all()

    def note(self, start: float, end: float) -> None:
        """Record a stall from ``start`` to ``end`` (monotonic s) seen by other means (tests)."""
        with self._lock:
            self._starts.append(start)
            self._ends.append(end)

    def late_ms(self, start: float, end: float, *, settle_s: float = 1.0) -> float:
        """How much of the time from ``start`` to ``end`` (monotonic s) the referee was
        stalled, in ms: the overlap of the stalls with that span. A stall going on at
        ``end`` is known only when the heartbeat wakes again: this waits for that wake-up
        (up to ``settle_s``; at once when the heartbeat is not running)."""
        return sum(min(stall_end, end) - max(stall_start, start) for stall_start, stall_end in self._spans(start, end, settle_s)) * 1000.0

    def edges_ms(self, start: float, end: float, *, settle_s: float = 1.0) -> tuple[float, float]:
        """The referee's stalls at the two ends of the span from ``start`` to ``end``
        (monotonic s), in ms: (the part of the span covered by a stall that began within
        :data:`EDGE_S` of ``start``, so the request may not have left; the part covered by a
        stall going on within :data:`EDGE_S` of ``end``, so an answer there was not read).
        Stalls wholly inside the span are left out: the referee not running while the bot
        works delays nothing. A stall covering the whole span gives it in full at both
        ends. Waits for the heartbeat's next wake-up as :meth:`late_ms` does."""
        spans = self._spans(start, end, settle_s)
        first = last = 0.0
        if spans and spans[0][0] <= start + EDGE_S:
            first = (min(spans[0][1], end) - start) * 1000.0
        if spans and spans[-1][1] >= end - EDGE_S:
            last = (min(spans[-1][1], end) - max(spans[-1][0], start)) * 1000.0
        return max(0.0, first), max(0.0, last)

    def _spans(self, start: float, end: float, settle_s: float) -> list[tuple[float, float]]:
        """The stalls overlapping ``start``-``end`` (monotonic s), in order, once the heartbeat
        woke after ``end`` (up to ``settle_s``)."""
        with self._lock:
            if self._thread is not None:
                self._woke.wait_for(lambda: self._last_woke >= end, timeout=settle_s)
            ends, starts = list(self._ends), list(self._starts)
        spans = []
        for index in range(bisect.bisect_right(ends, start), len(ends)):
            if starts[index] >= end:
                break
            spans.append((starts[index], ends[index]))
        return spans

    def late_fraction(self, window_s: float, now: float | None = None) -> float:
        """The share (0-1) of the last ``window_s`` seconds the referee was stalled."""
        now = time.monotonic() if now is None else now
        return self.late_ms(now - window_s, now, settle_s=0.0) / 1000.0 / window_s


class HeldUp:
    """When decisions were held up by the machine (late answers excused as its, or asked
    again: docs/design.md §5), for the league's pace. Thread-safe: the games' threads note,
    the pace reads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: collections.deque[float] = collections.deque(maxlen=KEEP)

    def note(self, when: float | None = None) -> None:
        with self._lock:
            self._times.append(time.monotonic() if when is None else when)

    def since(self, start: float) -> int:
        """How many were noted at or after ``start`` (monotonic s)."""
        with self._lock:
            return sum(1 for when in self._times if when >= start)

_heartbeat = Heartbeat()


def heartbeat() -> Heartbeat:
    """The process's heartbeat, started on first use."""
    return _heartbeat.start()
