"""Long-lived threads that fork every bot process.

``PR_SET_PDEATHSIG`` (and bwrap's ``--die-with-parent``) fire when the *thread* that forked
the child ends, not the process: a bot started from a short-lived worker thread (a trio
thread-cache worker retires after 10 s idle) would be killed when that thread retires. These
threads live as long as the referee, so the signal fires exactly when the referee dies.

Two of them: :func:`run_in_spawner` for bots outside bubblewrap (a job asked for on the main
thread runs right there, which lives as long as the process too and spares two thread
wake-ups per start), and :func:`run_notified` for bubblewrap bots: that thread carries the
referee's seccomp filter (the allowlist; what is off it, shared futex waits among it, goes
to the referee), which every process it starts inherits (:mod:`referee.sandbox.futexwait`).
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from referee.sandbox import futexwait

T = TypeVar("T")


class _Spawner:
    """One daemon thread running jobs in order; ``setup`` runs first on it."""

    def __init__(self, name: str, setup: Callable[[], object] | None = None) -> None:
        self.name = name
        self.setup = setup
        self.setup_result: object = None
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    def _loop(self) -> None:
        try:
            if self.setup is not None:
                self.setup_result = self.setup()
        except Exception:  # the setup says what failed in its own result; never stop the spawner
            logging.getLogger(__name__).exception("%s: setup failed", self.name)
        finally:
            self._ready.set()
        while True:
            job, future = self._jobs.get()
            try:
                future.set_result(job())
            except BaseException as error:  # handed to the caller
                future.set_exception(error)

    def started(self) -> _Spawner:
        """Start the thread (once) and wait for its ``setup``."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._ready.clear()
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
        self._ready.wait()
        return self

    def run(self, job: Callable[[], T]) -> T:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((job, future))
        return future.result()

    def forget(self) -> None:
        """After a fork: the thread is not in the child."""
        self._thread, self._lock, self._ready = None, threading.Lock(), threading.Event()
        self._jobs = queue.SimpleQueue()


_plain = _Spawner("bot-spawner")
_notified = _Spawner("bot-spawner-futex", futexwait.install_on_this_thread)


def run_in_spawner(job: Callable[[], T]) -> T:
    """Run ``job`` on the spawner thread (started on first use), or at once when called on
    the main thread; return or raise its outcome."""
    if threading.current_thread() is threading.main_thread():
        return job()
    return _plain.started().run(job)


def notified_available() -> bool:
    """Whether :func:`run_notified` starts processes with the referee's notifying filter
    (the thread is started, and the filter loaded on it, on first call); when False,
    :func:`futexwait.problem` says why, or :func:`futexwait.ended` (its supervisor ended
    during this run: bots started from then on get bubblewrap's refusing filter)."""
    return futexwait.enabled and _notified.started().setup_result is not None and futexwait.ended() is None


def run_notified(job: Callable[[], T]) -> T:
    """Run ``job`` on the thread whose children send their shared futex waits to the
    referee (:func:`notified_available`; without it, a thread like any other spawner's)."""
    return _notified.started().run(job)


def _forget_after_fork() -> None:
    _plain.forget()
    _notified.forget()


os.register_at_fork(after_in_child=_forget_after_fork)
