"""One long-lived thread that forks every bot process.

``PR_SET_PDEATHSIG`` (and bwrap's ``--die-with-parent``) fire when the *thread* that forked
the child ends, not the process: a bot started from a short-lived worker thread (a trio
thread-cache worker retires after 10 s idle) would be killed when that thread retires. This
thread lives as long as the referee, so the signal fires exactly when the referee dies. The
main thread lives as long as the process too, so a job asked for on the main thread runs
right there (sparing two thread wake-ups per start).
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_jobs: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = queue.SimpleQueue()
_thread: threading.Thread | None = None
_lock = threading.Lock()


def _loop() -> None:
    while True:
        job, future = _jobs.get()
        try:
            future.set_result(job())
        except BaseException as error:  # handed to the caller
            future.set_exception(error)


def run_in_spawner(job: Callable[[], T]) -> T:
    """Run ``job`` on the spawner thread (started on first use), or at once when called on
    the main thread; return or raise its outcome."""
    global _thread
    if threading.current_thread() is threading.main_thread():
        return job()
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_loop, name="bot-spawner", daemon=True)
            _thread.start()
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    _jobs.put((job, future))
    return future.result()
