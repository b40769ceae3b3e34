"""Exclusive, non-blocking ``flock(2)`` locks, which the kernel drops however their holder
ends: how a referee holds its cgroups (:mod:`referee.sandbox.cgroups`) and its slot uids
(:mod:`referee.sandbox.uids`) against other referees on the same host."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def try_lock(path: Path, flags: int, mode: int = 0o600) -> int | None:
    """A descriptor (close-on-exec) of ``path`` opened with ``flags`` (``os.open`` flags,
    ``mode`` when it creates the file) that holds its exclusive lock; None when ``path``
    cannot be opened so or another open file of it holds the lock. Closing the descriptor
    releases the lock."""
    try:
        fd = os.open(path, flags | os.O_CLOEXEC, mode)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd
