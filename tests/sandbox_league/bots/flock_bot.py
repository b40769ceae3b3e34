"""Issue 12, class 6: two bots try to pass data through locks on a file both can read.

``send``: at start, takes an exclusive ``flock`` on the shared ``onthird.py`` (read-only to
both) and holds it: "the hand has a trump". ``receive``: on its 3rd decision tests that lock
(``LOCK_SH | LOCK_NB``), tries an ``fcntl`` record lock (also with the high bits of the
command set), an inotify watch and a new user namespace, and reports what it got as a
``malformed`` fault: ``CHANNEL <json>``."""

import ctypes
import errno
import fcntl
import json
import os
import struct
import sys

from onthird import serve_misbehaving

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onthird.py")
CLONE_NEWUSER = 0x10000000
held = []


def attempt(action) -> str:
    try:
        action()
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


def send() -> None:
    fd = os.open(SHARED, os.O_RDONLY)
    held.append(fd)
    print(f"flock_bot send: flock {attempt(lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))}", file=sys.stderr, flush=True)


def libc_call(name: str, *args: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) < 0:
        raise OSError(ctypes.get_errno(), name)


def high_bits_lock(fd: int) -> None:
    """F_SETLK with bits above the 32 of fcntl's ``int`` command set: the kernel drops them."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    lock = ctypes.create_string_buffer(struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 0, 0))
    if libc.syscall(72, fd, ctypes.c_ulong(fcntl.F_SETLK | 1 << 32), lock) < 0:  # x86_64 fcntl
        raise OSError(ctypes.get_errno(), "fcntl")


def receive(_view: object) -> None:
    fd = os.open(SHARED, os.O_RDONLY)
    seen = {
        "flock": attempt(lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
        "lockf": attempt(lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
        "lock_high_bits": attempt(lambda: high_bits_lock(fd)),
        "inotify": attempt(lambda: libc_call("inotify_init1", 0)),
        "userns": attempt(lambda: libc_call("unshare", CLONE_NEWUSER)),
    }
    raise RuntimeError("CHANNEL " + json.dumps(seen, sort_keys=True))


if sys.argv[1] == "send":
    send()
    serve_misbehaving("flock-send", lambda _view: None)
else:
    serve_misbehaving("flock-receive", receive)
