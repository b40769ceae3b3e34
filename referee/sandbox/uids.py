"""The unprivileged uids a root referee runs bots as (sandbox.md "Root is a trap"): one per
live bot process, never shared with another referee on the same host.

A uid is held, from launch until the bot's processes are reaped, in this referee's memory
and by an exclusive ``flock(2)`` on ``<LOCK_DIR>/<uid>.lock``: another referee skips it, and
the kernel drops the lock however this referee ends. Before, every start scanned ``/proc``
for processes of each uid: ~1.5 ms a start (more on a busy host), and racy, since two
referees starting bots at the same moment both saw a uid free before either bot ran. The
lock closes that race. One scan at the first claim still skips uids that processes left by
a referee that was killed may hold (possible only without cgroups and bwrap, for a
daemonised grandchild), and is taken again once every other uid is held: the referees
whose bots ran as them then may have ended. Uids go round-robin, so a uid just released (whose killed processes
may still be exiting) is the last to be used again. Where the lock directory cannot be
made safely (not a directory owned by us), claims fall back to scanning ``/proc`` each time.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from referee.sandbox.bwrap import SLOT_UIDS
from referee.sandbox._locks import try_lock

LOCK_DIR = Path("/run/kwhist-uids")  # tests point it elsewhere

_lock = threading.RLock()  # re-entrant: kill_all (which releases) may run in a signal handler
_held: set[int] = set()
_next = 0  # index into SLOT_UIDS where the next search starts
_strays: set[int] | None = None  # uids running processes at our first claim


@dataclass
class UidClaim:
    """One held uid; :meth:`release` once the bot's processes are gone (idempotent)."""

    uid: int
    fd: int | None

    def release(self) -> None:
        with _lock:
            if self.fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self.fd)
                self.fd = None
            _held.discard(self.uid)


def uids_running() -> set[int]:
    """The uids of every process on the host (empty without /proc)."""
    uids = set()
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    uids.add(entry.stat().st_uid)
    return uids


def _lock_dir() -> Path | None:
    """LOCK_DIR, made 0700 if missing; None unless it is a real directory owned by us."""
    with contextlib.suppress(FileExistsError, OSError):
        LOCK_DIR.mkdir(mode=0o700)
    try:
        info = LOCK_DIR.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        return None
    return LOCK_DIR


def claim() -> UidClaim | None:
    """Hold the next free slot uid; None when every one is held (here, by another referee,
    or by a leftover process). The uids running processes at the first claim are skipped
    until every other uid is taken; then ``/proc`` is scanned again (the referees that held
    them may have ended since)."""
    global _strays
    with _lock:
        directory = _lock_dir()
        if directory is None:
            return _search(directory, uids_running())
        if _strays is not None and (found := _search(directory, _strays)) is not None:
            return found
        _strays = uids_running() & set(SLOT_UIDS)
        return _search(directory, _strays)


def _search(directory: Path | None, busy: set[int]) -> UidClaim | None:
    """The next slot uid neither held here, nor in ``busy``, nor locked by another referee."""
    global _next
    for step in range(len(SLOT_UIDS)):
        index = (_next + step) % len(SLOT_UIDS)
        uid = SLOT_UIDS[index]
        if uid in _held or uid in busy:
            continue
        fd = None
        if directory is not None:
            fd = try_lock(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW)
            if fd is None:
                continue  # another referee holds it
        _held.add(uid)
        _next = index + 1
        return UidClaim(uid, fd)
    return None
