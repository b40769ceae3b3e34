"""The seccomp filter bubblewrap loads before it runs a bot (``bwrap --seccomp FD``;
docs/sandbox.md "Threat model").

Bots under bubblewrap share read-only files (``/usr``, the runtime): taking and testing
locks on them, or watching them for access, is a channel between two bots (one passed its
hand to another through ``flock``). The filter refuses, with ``EPERM``:

- ``flock``; ``fcntl`` record locks (``F_GETLK``/``F_SETLK``/``F_SETLKW`` and their
  open-file-description forms), leases and directory notifications (``F_SETLEASE``,
  ``F_GETLEASE``, ``F_NOTIFY``);
- ``inotify_init``, ``inotify_init1``, ``fanotify_init``;
- new user namespaces: ``unshare`` and ``clone`` with ``CLONE_NEWUSER``; ``clone3`` (whose
  flags it cannot see) fails with ``ENOSYS``, so that C libraries fall back to ``clone``.

Everything else is allowed. A bot that locks its own private files cannot (docs/sandbox.md
says what it can do instead). Built with libseccomp through ``pyseccomp`` once per referee;
None where that is not installed (the referee warns at start).
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile

F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE, F_NOTIFY = 1024, 1025, 1026
LOCK_COMMANDS = (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY)
NOTIFY_CALLS = ("inotify_init", "inotify_init1", "fanotify_init")
CLONE_NEWUSER = 0x10000000
MISSING_WARNING = (
    "sandbox: no seccomp filter (install libseccomp2 and the pyseccomp package): "
    "bots can pass data to each other through file locks and file-access notifications"
)


@functools.cache
def program() -> bytes | None:
    """The compiled BPF program (what ``bwrap --seccomp`` reads), or None where libseccomp
    or ``pyseccomp`` is missing. Built once."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError):
        return None
    try:
        deny = sc.ERRNO(errno.EPERM)
        rules = sc.SyscallFilter(defaction=sc.ALLOW)
        rules.add_rule(deny, "flock")
        for command in LOCK_COMMANDS:
            rules.add_rule(deny, "fcntl", sc.Arg(1, sc.EQ, command))
        for call in NOTIFY_CALLS:
            rules.add_rule(deny, call)
        for call in ("unshare", "clone"):
            rules.add_rule(deny, call, sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
        rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        with tempfile.TemporaryFile() as exported:  # libseccomp writes to a real descriptor
            rules.export_bpf(exported)
            exported.seek(0)
            return exported.read() or None
    except Exception:  # a libseccomp that cannot build it: no filter, and the warning says so
        return None


def program_fd() -> int | None:
    """A pipe's read end holding :func:`program` (inheritable, for ``pass_fds``; the caller
    closes it after the start), or None without a program."""
    data = program()
    if data is None:
        return None
    read, write = os.pipe()
    try:
        os.write(write, data)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read
