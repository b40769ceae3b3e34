"""How much CPU a bot's processes used, and how long they waited for a core: the bot's
side of the evidence that tells a slow bot from a slow machine (docs/design.md §5).

Linux keeps per-task scheduler statistics in ``/proc/<pid>/task/<tid>/schedstat``: the
time the task ran on a CPU and the time it was runnable but waiting on a run queue, in ns.
A :class:`TaskClock` opens that file for every task (process or thread) of a bot's process
tree once, and then reads them all with one ``pread`` each, so a decision is sampled
before and after its call without walking the tree. Tasks started later are picked up by
:meth:`TaskClock.refresh`. Where there is no ``/proc`` the clock reads nothing (None).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

MAX_TASKS = 48  # tasks of one bot tree kept open (the deepest first): bounds the referee's open files

Sample = tuple[tuple[int, int] | None, ...]
"""Per task of a :class:`TaskClock`: (ns on a CPU, ns waiting for one), None once it is gone."""


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                found += [int(word) for word in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process below it, parents before children (empty without /proc)."""
    if not os.path.isdir(f"/proc/{pid}"):
        return []
    order, seen = [pid], {pid}
    for parent in order:  # grows while it is walked: breadth first
        for child in _children(parent):
            if child not in seen:
                seen.add(child)
                order.append(child)
    return order


def read_schedstat(fd: int) -> tuple[int, int] | None:
    """(ns on a CPU, ns runnable waiting for a CPU) from an open ``schedstat`` file; None
    when its task is gone or the file cannot be read."""
    try:
        fields = os.pread(fd, 128, 0).split()
        return int(fields[0]), int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


class TaskClock:
    """The scheduler clocks of one bot process tree (``pid``: the process the referee
    started, its whole tree counted). Open while the bot plays; :meth:`close` when done."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fds: dict[tuple[int, int], int] = {}  # (pid, tid) -> open schedstat
        self.refresh()

    def refresh(self) -> None:
        """Open the clocks of tasks started since (up to :data:`MAX_TASKS`, the deepest
        processes first: a bot's own threads rather than its sandbox's), close those of
        tasks that ended. Never raises."""
        tasks: list[tuple[int, int]] = []
        for pid in reversed(process_tree(self.pid)):
            with contextlib.suppress(OSError, ValueError):
                tasks += [(pid, int(tid)) for tid in sorted(os.listdir(f"/proc/{pid}/task"))]
        wanted = set(tasks[:MAX_TASKS])
        for key in [key for key in self._fds if key not in wanted]:
            with contextlib.suppress(OSError):
                os.close(self._fds.pop(key))
        for pid, tid in tasks[:MAX_TASKS]:
            if (pid, tid) not in self._fds:
                with contextlib.suppress(OSError):
                    self._fds[(pid, tid)] = os.open(f"/proc/{pid}/task/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)

    def sample(self) -> Sample:
        """Every open task's clocks now (a few µs)."""
        return tuple(read_schedstat(fd) for fd in self._fds.values())

    @staticmethod
    def used(before: Sample, after: Sample) -> tuple[float, float]:
        """(ms on a CPU, ms waiting for one) between two samples of the same clock, summed
        over the tasks seen in both."""
        run = wait = 0
        for was, now in zip(before, after):
            if was is not None and now is not None:
                run += now[0] - was[0]
                wait += now[1] - was[1]
        return run / 1e6, wait / 1e6

    @property
    def tasks(self) -> int:
        """How many tasks are being watched (0 where nothing can be read)."""
        return len(self._fds)

    def close(self) -> None:
        """Close every clock. Idempotent."""
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()
