"""How much CPU all of a bot's tasks used during one ask, and how long the bot was kept off
every core: the bot's side of the evidence that tells a slow bot from a slow machine
(docs/design.md §5, "A loaded machine").

Two sources, the better one where there is one:

- **its cgroup** (cgroup v2): ``cpu.stat``'s ``usage_usec`` counts every task the bot ever
  ran in it, threads and processes it started and children already gone; ``cpu.pressure``'s
  ``full`` line counts the time in which the bot had runnable tasks and none of them on a
  core (the kernel's pressure stall information). Two files, read with one ``pread`` each.
- **its process tree** elsewhere (no cgroup here, a normal user, a v1-only host): the
  scheduler clocks of every task (``/proc/<pid>/task/<tid>/schedstat``: ns on a CPU, ns
  runnable waiting for one) and of every process (``/proc/<pid>/stat``: its CPU, its finished
  threads' included, and its reaped children's). The clocks known before an ask are kept
  open and read with one ``pread`` each, a few µs; the tree is walked again only when a
  late ask is judged, so tasks the bot started during the ask count too (a walk reads
  ``/proc`` per task, ~1 ms). Its starvation is bounded from below by
  :func:`referee.game.timecontrol.starved_ms`: its tasks waiting behind each other never count.

Where there is no ``/proc`` the clock reads nothing. Nothing here raises.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from referee.game.timecontrol import starved_ms

MAX_TASKS = 48  # task clocks of one bot kept open (the deepest processes first): bounds the referee's open files
MAX_PROCESSES = 16  # process clocks kept open
TICK_S = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)  # the unit of /proc/<pid>/stat's times

Key = tuple[int, int]  # (pid, tid)
K = TypeVar("K")
T = TypeVar("T")


@dataclass(frozen=True)
class Sample:
    """The bot's clocks at one moment: ``boot_s`` (CLOCK_BOOTTIME s, the clock of a task's
    start time); ``tasks``: (pid, tid) -> (ns on a CPU, ns waiting for one); ``processes``:
    pid -> its CPU and its reaped children's in clock ticks; ``cgroup``: (``usage_usec``,
    ``full`` stall µs or None) where the bot has a cgroup."""

    boot_s: float
    tasks: dict[Key, tuple[int, int]]
    processes: dict[int, int]
    cgroup: tuple[int, int | None] | None = None


@dataclass(frozen=True)
class Used:
    """What the bot did between two samples, in ms: ``cpu_ms`` on a CPU, all its tasks;
    ``starved_ms`` runnable with none of its tasks on a core; ``ran``: whether any task of
    it ran at all (a bot that did not never received the request)."""

    cpu_ms: float
    starved_ms: float
    ran: bool


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


def _stat_fields(text: bytes) -> list[bytes]:
    """The fields of a ``/proc/<pid>/stat`` line after its ``(comm)``: [0] is field 3 (state)."""
    return text[text.rfind(b")") + 2 :].split()


def read_process_ticks(fd: int) -> int | None:
    """utime + stime + cutime + cstime (clock ticks) from an open ``/proc/<pid>/stat``: the
    process's CPU, its finished threads' and its reaped children's; None when it is gone."""
    try:
        fields = _stat_fields(os.pread(fd, 1024, 0))
        return sum(int(field) for field in fields[11:15])
    except (OSError, ValueError, IndexError):
        return None


def _start_s(path: str) -> float | None:
    """When the task or process of ``path`` (a ``/proc/.../stat``) started, CLOCK_BOOTTIME s."""
    try:
        return int(_stat_fields(Path(path).read_bytes())[19]) * TICK_S
    except (OSError, ValueError, IndexError):
        return None


def _pread_int(fd: int, key: bytes, size: int = 512) -> int | None:
    """The number after ``key`` in an open cgroup file (``usage_usec 123``)."""
    try:
        text = os.pread(fd, size, 0)
    except OSError:
        return None
    at = text.find(key)
    if at < 0:
        return None
    words = text[at + len(key) :].split(maxsplit=1)
    try:
        return int(words[0]) if words else None
    except ValueError:
        return None


def _boot_s() -> float:
    try:
        return time.clock_gettime(time.CLOCK_BOOTTIME)
    except (AttributeError, OSError):
        return time.monotonic()


class BotClock:
    """The CPU clocks of one bot: ``pid`` the process the referee started (its whole tree
    counted), ``cgroup`` its cgroup v2 leaf where it has one. Open while the bot plays;
    :meth:`close` when done."""

    def __init__(self, pid: int, cgroup: Path | None = None) -> None:
        self.pid = pid
        self._tasks: dict[Key, int] = {}  # (pid, tid) -> open schedstat
        self._processes: dict[int, int] = {}  # pid -> open stat
        self._cgroup: tuple[int, int | None] | None = None  # open cpu.stat, cpu.pressure
        if cgroup is not None:
            with contextlib.suppress(OSError):
                usage = os.open(cgroup / "cpu.stat", os.O_RDONLY | os.O_CLOEXEC)
                pressure: int | None = None
                with contextlib.suppress(OSError):
                    pressure = os.open(cgroup / "cpu.pressure", os.O_RDONLY | os.O_CLOEXEC)
                self._cgroup = (usage, pressure)
        self.refresh()

    def refresh(self) -> None:
        """Open the clocks of tasks and processes started since (up to :data:`MAX_TASKS`
        and :data:`MAX_PROCESSES`, the deepest processes first: a bot's own threads rather
        than its sandbox's), close those that ended."""
        tree = list(reversed(process_tree(self.pid)))
        tasks: list[Key] = []
        for pid in tree:
            with contextlib.suppress(OSError, ValueError):
                tasks += [(pid, int(tid)) for tid in sorted(os.listdir(f"/proc/{pid}/task"))]
        _reopen(self._tasks, tasks[:MAX_TASKS], lambda key: f"/proc/{key[0]}/task/{key[1]}/schedstat")
        _reopen(self._processes, tree[:MAX_PROCESSES], lambda pid: f"/proc/{pid}/stat")

    def sample(self) -> Sample:
        """Every open clock now (a few µs): the mark before an ask."""
        tasks = {key: clocks for key, fd in self._tasks.items() if (clocks := read_schedstat(fd)) is not None}
        processes = {pid: ticks for pid, fd in self._processes.items() if (ticks := read_process_ticks(fd)) is not None}
        return Sample(_boot_s(), tasks, processes, self._read_cgroup())

    def _read_cgroup(self) -> tuple[int, int | None] | None:
        if self._cgroup is None:
            return None
        usage = _pread_int(self._cgroup[0], b"usage_usec")
        if usage is None:
            return None
        return usage, _full_total(self._cgroup[1]) if self._cgroup[1] is not None else None

    def used(self, before: Sample) -> Used:
        """What the bot did since ``before`` (a :meth:`sample`), every task counted: those it
        had then, those it started since (the tree is walked again, ~1 ms: call it only to
        judge a late ask) and those that ended (in their parents' clocks, or the cgroup's).
        A process started after the last :meth:`refresh` but before ``before`` counts whole:
        more CPU than it used in the ask, never less (so never a starvation it did not
        have). The clocks are then refreshed."""
        tasks: list[tuple[float, float]] = []
        ran = False
        tree = process_tree(self.pid)
        seen: set[Key] = set()
        for pid in tree:
            with contextlib.suppress(OSError, ValueError):
                for tid in map(int, os.listdir(f"/proc/{pid}/task")):
                    key = (pid, tid)
                    seen.add(key)
                    was = before.tasks.get(key)
                    if was is None:
                        born = _start_s(f"/proc/{pid}/task/{tid}/stat")
                        if born is None or born < before.boot_s - TICK_S:
                            continue  # started before the ask, after the last refresh: its CPU counts below, its wait cannot be split
                        was = (0, 0)
                    clocks = _read_path(f"/proc/{pid}/task/{tid}/schedstat", read_schedstat)
                    if clocks is not None:
                        run, wait = (clocks[0] - was[0]) / 1e6, (clocks[1] - was[1]) / 1e6
                        tasks.append((max(0.0, run), max(0.0, wait)))
                        ran = ran or run > 0
        cpu = self._processes_ms(before, tree)
        ran = ran or cpu > 0 or any(key not in seen for key in before.tasks)  # a task that ended ran
        self.refresh()  # the next ask's mark knows the tasks found now
        if before.cgroup is not None and (after := self._read_cgroup()) is not None:
            cpu = max(cpu, (after[0] - before.cgroup[0]) / 1000)
            ran = ran or after[0] > before.cgroup[0]
            if after[1] is not None and before.cgroup[1] is not None:
                return Used(max(cpu, sum(run for run, _ in tasks)), max(0.0, (after[1] - before.cgroup[1]) / 1000), ran)
        return Used(max(cpu, sum(run for run, _ in tasks)), starved_ms(tasks, cpu), ran)

    def _processes_ms(self, before: Sample, tree: list[int]) -> float:
        """The CPU (ms) of the bot's processes since ``before``: those alive now (a process
        started since counts whole), their reaped children included, less what the ones
        known before had used by then."""
        after = 0
        for pid in tree:
            fd = self._processes.get(pid)
            ticks = read_process_ticks(fd) if fd is not None else _read_path(f"/proc/{pid}/stat", read_process_ticks)
            after += ticks or 0
        return max(0.0, (after - sum(before.processes.values())) * TICK_S * 1000)

    @property
    def tasks(self) -> int:
        """How many task clocks are open (0 where nothing can be read)."""
        return len(self._tasks)

    def close(self) -> None:
        """Close every clock. Idempotent."""
        for fd in [*self._tasks.values(), *self._processes.values(), *(self._cgroup or ())]:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._tasks.clear()
        self._processes.clear()
        self._cgroup = None


def _full_total(fd: int) -> int | None:
    """The ``total=`` of the ``full`` line of an open ``cpu.pressure`` (µs); None without one."""
    try:
        text = os.pread(fd, 256, 0)
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(b"full"):
            for word in line.split():
                if word.startswith(b"total="):
                    with contextlib.suppress(ValueError):
                        return int(word[6:])
    return None


def _reopen(open_fds: dict[K, int], wanted: list[K], path: Callable[[K], str]) -> None:
    """Keep ``open_fds`` (key -> an open file) to the keys of ``wanted``, opening ``path(key)``."""
    keep = set(wanted)
    for key in [key for key in open_fds if key not in keep]:
        with contextlib.suppress(OSError):
            os.close(open_fds.pop(key))
    for key in wanted:
        if key not in open_fds:
            with contextlib.suppress(OSError):
                open_fds[key] = os.open(path(key), os.O_RDONLY | os.O_CLOEXEC)


def _read_path(path: str, reader: Callable[[int], T]) -> T | None:
    """``reader`` applied to ``path`` opened once (a clock not kept open); None when it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return reader(fd)
    finally:
        os.close(fd)
