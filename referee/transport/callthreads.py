"""The threads that make one client's blocking gRPC calls awaited from trio: Hello,
GameOver and check-bot's questions. (A game's decisions are made on the game's own
thread instead, ``referee.league.gamethread``: no thread is crossed per decision.)

Why not the stub's future API: grpc starts a polling thread for a channel whenever a
call starts with no other call of that channel in flight and lets it end with the last
one, so a game (one call at a time per bot) started and ended a thread per decision
(measured in ``make bench``, B1/B2). Here each client keeps its own threads, one per
call in flight (a pooled bot, which plays one seat at a time, needs one), started on
first use and reused: the trio task hands the blocking call to an idle thread and sleeps
until that thread wakes it with ``TrioToken.run_sync_soon``. The call's start and end
are read on the calling thread, so the measured time holds no trio scheduling delay.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import trio

T = TypeVar("T")

_Job = tuple[Callable[[], None], Callable[[], None]]  # (make the call, wake the waiting task)


@dataclass(frozen=True)
class Finished(Generic[T]):
    """A finished blocking call: its ``value``, or the ``error`` it raised (``value`` is
    then None); ``started`` and ``ended`` are ``time.monotonic()`` seconds read on the
    calling thread just before and just after the call."""

    value: T | None
    error: BaseException | None
    started: float
    ended: float

    @property
    def ms(self) -> float:
        """How long the call took, in ms."""
        return (self.ended - self.started) * 1000.0


class CallThreads:
    """Reusable daemon threads for the blocking calls of one client (``name`` names them)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[_Job | None]] = []
        self._closed = False

    async def run(self, call: Callable[[], T]) -> Finished[T]:
        """Run the blocking ``call`` on an idle thread (a new one if none is idle) and
        wait in trio for it. Never raises what ``call`` raises: that is in
        ``Finished.error``. Cancelling the waiting task abandons the call, which ends on
        its own (at its gRPC deadline, or when the channel is closed)."""
        token = trio.lowlevel.current_trio_token()
        task = trio.lowlevel.current_task()
        box: list[Finished[T]] = []
        abandoned = False

        def work() -> None:
            started = time.monotonic()
            try:
                value: T | None = call()
                error: BaseException | None = None
            except BaseException as raised:  # handed to the waiting task
                value, error = None, raised
            box.append(Finished(value, error, started, time.monotonic()))

        def resume() -> None:  # in the trio thread
            if not abandoned:
                trio.lowlevel.reschedule(task)

        def wake() -> None:
            try:
                token.run_sync_soon(resume)
            except trio.RunFinishedError:
                pass

        def abort(_: object) -> trio.lowlevel.Abort:
            nonlocal abandoned
            abandoned = True
            return trio.lowlevel.Abort.SUCCEEDED

        self._submit((work, wake))
        await trio.lowlevel.wait_task_rescheduled(abort)
        return box[0]

    def close(self) -> None:
        """Let every idle thread end; a busy one ends after its call. Idempotent; a
        later :meth:`run` still works (on a thread that ends after the call)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for jobs in idle:
            jobs.put(None)

    def _submit(self, job: _Job) -> None:
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is not None:
            jobs.put(job)
            return
        jobs = queue.SimpleQueue()
        jobs.put(job)
        threading.Thread(target=self._serve, args=(jobs,), name=f"grpc-call {self._name}", daemon=True).start()

    def _serve(self, jobs: queue.SimpleQueue[_Job | None]) -> None:
        while (job := jobs.get()) is not None:
            work, wake = job
            work()
            with self._lock:  # idle again before the task wakes: its next call reuses this thread
                closed = self._closed
                if not closed:
                    self._idle.append(jobs)
            wake()
            del job, work, wake  # hold no request or reply while idle
            if closed:
                return
