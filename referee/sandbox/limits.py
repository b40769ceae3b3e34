"""Rlimits and the rest of what a bot's child process does between fork and exec.

Hard = soft for every rlimit, so a bot cannot raise them back (sandbox.md "Limits"); the one
exception is ``RLIMIT_CPU``, whose hard limit is one second above the soft one so that the
kernel sends ``SIGXCPU`` (which names the limit) before ``SIGKILL``.

On Linux the rlimits are set by the start wrapper (:mod:`referee.sandbox.wrapper`, util-linux
``prlimit``). Elsewhere the function returned by :func:`make_preexec` runs in the forked
child, possibly while other threads of the referee held locks at the fork: it only makes
system calls (``write``, ``setrlimit``, ``prctl``), prepared in the parent.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import resource
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.sandbox.settings import MiB, SandboxSettings

PR_SET_PDEATHSIG = 1

Rlimit = tuple[int, int, int]  # (resource, soft, hard)


def _capped(value: int, limit: int) -> int:
    """``value`` no higher than the current hard limit of the referee (a non-root process
    cannot raise its hard limit)."""
    _soft, hard = resource.getrlimit(limit)
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def rlimits(settings: SandboxSettings, *, memory: bool, nproc: int | None) -> list[Rlimit]:
    """The rlimits of one bot process.

    ``memory``: bound its memory with ``RLIMIT_DATA`` at ``memory_mb`` (where no cgroup
    bounds it). Since Linux 4.7 ``RLIMIT_DATA`` counts the private writable memory a process
    has committed (heap, anonymous mappings, thread stacks), not the address space it has
    only reserved: V8, the JVM and the Go runtime reserve gigabytes they never use, and start
    under it whatever starts them (a ``run.sh``, ``#!/usr/bin/env node``). Shared mappings are
    not counted: only a memory cgroup bounds those (docs/sandbox.md "Limits").
    ``nproc``: ``RLIMIT_NPROC`` (processes and threads of the bot's uid), or None to leave it.
    """
    wanted: list[tuple[int, int, int]] = [
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NOFILE, settings.open_files, settings.open_files),
        (resource.RLIMIT_FSIZE, settings.file_size_mb * MiB, settings.file_size_mb * MiB),
        (resource.RLIMIT_CPU, settings.cpu_seconds, settings.cpu_seconds + 1),
    ]
    if memory:
        wanted.append((resource.RLIMIT_DATA, settings.memory_mb * MiB, settings.memory_mb * MiB))
    if nproc is not None:
        wanted.append((resource.RLIMIT_NPROC, nproc, nproc))
    result = []
    for limit, soft, hard in wanted:
        hard = _capped(hard, limit)
        result.append((limit, min(soft, hard), hard))
    return result


def runtime_env(settings: SandboxSettings) -> dict[str, str]:
    """Environment variables that size a runtime's heap to the bot's memory limit, read by
    whichever process of the bot runs it (behind any wrapper): the JVM sizes its heap from
    the machine's memory (an initial heap of 1/64 of it, committed at start: more than the
    limit on a large machine), so ``JAVA_TOOL_OPTIONS`` gives it ``-XX:MaxRAM`` =
    ``memory_mb`` (its heap then grows to a quarter of that; the bot's own ``-Xmx`` on its
    command line still wins). The JVM writes ``Picked up JAVA_TOOL_OPTIONS: ...`` to the
    bot's stderr."""
    return {"JAVA_TOOL_OPTIONS": f"-XX:MaxRAM={settings.memory_mb}m"}


def tasks_of_uid(uid: int) -> int:
    """Processes and threads now running as ``uid`` (what ``RLIMIT_NPROC`` counts); 0 where
    there is no /proc."""
    count = 0
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += sum(1 for _ in (entry / "task").iterdir())
        except OSError:
            continue
    return count


@functools.cache
def _prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None
    function: Callable[[int, int], int] = libc.prctl
    return function


def make_preexec(
    limits: Sequence[Rlimit], cgroup_fds: Sequence[int], *, die_with_parent: bool
) -> Callable[[], None]:
    """The child's last steps before exec: join the cgroups (write ``0`` to each
    ``cgroup.procs`` descriptor), set the rlimits, and (``die_with_parent``) ask for SIGKILL
    when the referee dies (``PR_SET_PDEATHSIG``; runs after any uid change, which clears it).
    """
    prctl = _prctl() if die_with_parent else None
    parent = os.getpid()
    fds, limits = tuple(cgroup_fds), tuple(limits)

    def preexec() -> None:
        for fd in fds:
            try:
                os.write(fd, b"0")
            except OSError:
                pass
        for limit, soft, hard in limits:
            resource.setrlimit(limit, (soft, hard))
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the referee died before prctl took effect
                os.kill(os.getpid(), signal.SIGKILL)

    return preexec
