"""Run one game's synchronous match loop on a worker thread, awaited in trio.

Why a thread per game rather than a trio task per decision: a decision is one blocking
gRPC call. Made from a trio task it had to cross to a calling thread and back: two
thread wake-ups per decision, measured at 30-60 % on top of the call itself on a
2-core machine (``make bench``, B1/B2). On the game's own thread the match loop
(engine, request, call, judging) runs straight through; trio pays two wake-ups per
game instead of per decision. The threads come from trio's thread cache
(``trio.lowlevel.start_thread_soon``), so a league of thousands of games starts no
thread per game; the league's workers bound how many run at once.

Cancellation (Ctrl-C): the waiting task tells the loop to stop before its next decision
and calls ``on_stop`` (the league closes the game's connections, which ends a call in
flight at once); it then waits for the thread to finish, so no game thread outlives its
league, and raises ``trio.Cancelled`` as usual.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import trio

if TYPE_CHECKING:
    import outcome  # trio's own result type (a dependency of trio)

from referee.errors import MatchStopped

T = TypeVar("T")

Stopped = Callable[[], bool]
"""Asked by the match loop before each decision: True once the game must be abandoned."""


async def run_game_thread(play: Callable[[Stopped], T], *, on_stop: Callable[[], None], name: str = "game") -> T:
    """``play(stopped)`` on a worker thread; return its result or raise its exception.

    On cancellation: ``stopped()`` turns True, ``on_stop()`` is called in the trio thread,
    the thread is waited for, and ``trio.Cancelled`` is raised whatever ``play`` returned
    (its own :class:`~referee.errors.MatchStopped` is not surfaced).
    """
    stop = threading.Event()
    token = trio.lowlevel.current_trio_token()
    task = trio.lowlevel.current_task()

    def deliver(result: outcome.Outcome[T]) -> None:  # on the worker thread
        try:
            token.run_sync_soon(trio.lowlevel.reschedule, task, result)
        except trio.RunFinishedError:  # pragma: no cover - the run cannot end while a task waits here
            pass

    def abort(_: object) -> trio.lowlevel.Abort:
        stop.set()
        on_stop()
        return trio.lowlevel.Abort.FAILED  # keep waiting: the thread stops at its next decision

    trio.lowlevel.start_thread_soon(lambda: play(stop.is_set), deliver, name=name)
    try:
        result: T = await trio.lowlevel.wait_task_rescheduled(abort)
    except MatchStopped:
        if not stop.is_set():
            raise
    if stop.is_set():
        # cancelled: even a game that reached its end is dropped, since closing its
        # connections may have faulted its last call; the checkpoint raises Cancelled
        await trio.lowlevel.checkpoint()
        raise MatchStopped("the game was cancelled")  # pragma: no cover - the checkpoint raised
    return result
