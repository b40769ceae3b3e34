"""How much memory the machine has to spare for bot processes the pool keeps idle
(docs/design.md §6: a process never plays a deal it has played, so a bot keeps several).

The spare memory is the kernel's ``MemAvailable`` (``/proc/meminfo``: free memory plus what
can be reclaimed without swapping), or less where the referee runs under a memory limit (a
container, a systemd slice): the room left below ``memory.max`` (cgroup v2) or
``memory.limit_in_bytes`` (v1) of its own cgroup and each one above it, counting their
inactive file cache as free, as ``MemAvailable`` does. The bots' cgroups lie below the
referee's (:mod:`referee.sandbox.cgroups`), so their memory counts there.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

MiB = 1024 * 1024
RESERVE_FLOOR = 256 * MiB
RESERVE_SHARE = 8  # keep 1/8 of the memory the referee may use (at least RESERVE_FLOOR) free
CGROUP_ROOT = Path("/sys/fs/cgroup")
UNLIMITED = 1 << 60  # cgroup v1 writes "no limit" as a huge number
MAX_AGE_S = 0.25  # short_of_memory reads the files at most this often (~0.1 ms a read)


def _meminfo() -> dict[str, int]:
    """``/proc/meminfo`` in bytes ({} where there is none)."""
    found: dict[str, int] = {}
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            key, _, rest = line.partition(":")
            parts = rest.split()
            if parts and parts[0].isdigit():
                found[key] = int(parts[0]) * 1024
    except OSError:
        pass
    return found


def _number(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _stat(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key and value.strip().isdigit():
                return int(value)
    except OSError:
        pass
    return 0


@functools.cache
def _own_cgroups() -> tuple[tuple[Path, str], ...]:
    """The referee's memory cgroup and its ancestors up to the root: (folder, version);
    read once (the referee does not move)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return ()
    found: list[tuple[Path, str]] = []
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if controllers == "" and (CGROUP_ROOT / "cgroup.controllers").exists():
            base, version = CGROUP_ROOT, "v2"
        elif "memory" in controllers.split(","):
            base, version = CGROUP_ROOT / "memory", "v1"
        else:
            continue
        folder = base / path.lstrip("/")
        while True:
            found.append((folder, version))
            if folder == base or base not in folder.parents:
                break
            folder = folder.parent
    return tuple(found)


def _cgroup_limits() -> list[tuple[int, int]]:
    """(limit, in use not counting inactive file cache) in bytes of each of the referee's
    memory cgroups that has a limit."""
    limits = []
    for folder, version in _own_cgroups():
        if version == "v2":
            limit, used = _number(folder / "memory.max"), _number(folder / "memory.current")
            cache = _stat(folder / "memory.stat", "inactive_file")
        else:
            limit, used = _number(folder / "memory.limit_in_bytes"), _number(folder / "memory.usage_in_bytes")
            cache = _stat(folder / "memory.stat", "total_inactive_file")
        if limit is not None and used is not None and limit < UNLIMITED:
            limits.append((limit, max(0, used - cache)))
    return limits


def spare_and_reserve() -> tuple[int, int] | None:
    """(bytes to spare now, bytes to keep spare) for the referee and its bots: the spare is
    the least of ``MemAvailable`` and the room under each memory limit of the referee's
    cgroups; the reserve is 1/:data:`RESERVE_SHARE` of the memory it may use at most (the
    machine's, or its tightest limit), at least :data:`RESERVE_FLOOR`. None where the
    host does not say (no ``/proc/meminfo``)."""
    meminfo = _meminfo()
    if "MemAvailable" not in meminfo or "MemTotal" not in meminfo or not os.path.isdir("/proc"):
        return None
    spare, total = meminfo["MemAvailable"], meminfo["MemTotal"]
    for limit, used in _cgroup_limits():
        spare = min(spare, max(0, limit - used))
        total = min(total, limit)
    return spare, max(RESERVE_FLOOR, total // RESERVE_SHARE)


_last: tuple[float, bool] | None = None  # (time.monotonic(), the answer then)


def short_of_memory(*, fresh: bool = False) -> bool:
    """Whether less memory is spare than the reserve (:func:`spare_and_reserve`); the
    answer of the last :data:`MAX_AGE_S` s unless ``fresh``."""
    global _last
    now = time.monotonic()
    if not fresh and _last is not None and now - _last[0] < MAX_AGE_S:
        return _last[1]
    found = spare_and_reserve()
    short = found is not None and found[0] < found[1]
    _last = (now, short)
    return short
