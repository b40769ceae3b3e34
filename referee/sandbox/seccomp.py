"""The seccomp filter bubblewrap loads before it runs a bot (``bwrap --seccomp FD``;
docs/sandbox.md "Threat model").

Bots under bubblewrap share read-only files (``/usr``, the runtime) and one kernel: anything
keyed by a file's inode, or by a name in a namespace bots share, is a channel between two
bots (one passed its hand to another through ``flock``, through a named keyring, and
through futex waiters on a runtime file). The filter refuses:

- with ``EPERM``: ``flock``; ``fcntl`` record locks (``F_GETLK``/``F_SETLK``/``F_SETLKW`` and
  their open-file-description forms), leases and directory notifications (``F_SETLEASE``,
  ``F_GETLEASE``, ``F_NOTIFY``); ``inotify_init``, ``inotify_init1``, ``fanotify_init``;
  the kernel keyrings (``keyctl``, ``add_key``, ``request_key``, as Docker's default
  profile does: a named keyring is found by every process of the same user namespace);
  new user namespaces (``unshare`` and ``clone`` with ``CLONE_NEWUSER``);
- a ``futex`` operation without ``FUTEX_PRIVATE_FLAG``. A shared futex is keyed by inode and
  offset for any file mapping, even a private read-only one (every process maps ``libc.so``
  so), hence the same in every sandbox; a private one is keyed by the process's own memory.
  Where the referee answers these calls itself (:mod:`referee.sandbox.futexwait`: a filter
  stacked below this one sends them to it, and a wait is answered "look again" after a short
  delay), this filter leaves ``futex`` to it. Elsewhere it refuses them with ``EINVAL``,
  which the C libraries take as "try again": glibc's ``pthread_join`` (the one shared wait of
  a process that shares no memory) then spins until the thread has ended, instead of
  sleeping;
- with ``ENOSYS``: ``clone3`` (whose flags it cannot see; C libraries then use ``clone``),
  and the futex2 calls (``futex_waitv``, ``futex_wait``, ``futex_wake``,
  ``futex_requeue``), whose private flags sit in memory the filter cannot read (no C
  library uses them yet).

A 32-bit argument is compared on its low 32 bits only (the kernel drops the high ones, so
a bot setting them must not slip past). Everything else is allowed. A bot that locks its
own private files cannot (docs/sandbox.md says what it can do instead). Built with
libseccomp through ``pyseccomp`` once per referee; None where that is not installed (the
referee warns at start).
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
KEYRING_CALLS = ("keyctl", "add_key", "request_key")
FUTEX2_CALLS = ("futex_waitv", "futex_wait", "futex_wake", "futex_requeue")
FUTEX_PRIVATE_FLAG = 128
CLONE_NEWUSER = 0x10000000
LOW_32_BITS = 0xFFFFFFFF
MISSING_WARNING = (
    "sandbox: no seccomp filter (install libseccomp2 and the pyseccomp package): "
    "bots can pass data to each other through file locks, file-access notifications, keyrings and futexes"
)


@functools.cache
def program(futex_notified: bool = False) -> bytes | None:
    """The compiled BPF program (what ``bwrap --seccomp`` reads), or None where libseccomp
    or ``pyseccomp`` is missing. Built once per variant. ``futex_notified``: the bot starts
    under the referee's futex-notifying filter (:mod:`referee.sandbox.futexwait`), so shared
    futex calls are left to that one; else they are refused with ``EINVAL``."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError):
        return None
    try:
        deny = sc.ERRNO(errno.EPERM)
        missing = sc.ERRNO(errno.ENOSYS)
        rules = sc.SyscallFilter(defaction=sc.ALLOW)
        rules.add_rule(deny, "flock")
        for command in LOCK_COMMANDS:  # fcntl's cmd is an int: its low 32 bits only
            rules.add_rule(deny, "fcntl", sc.Arg(1, sc.MASKED_EQ, LOW_32_BITS, command))
        for call in (*NOTIFY_CALLS, *KEYRING_CALLS):
            rules.add_rule(deny, call)
        for call in ("unshare", "clone"):
            rules.add_rule(deny, call, sc.Arg(0, sc.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
        rules.add_rule(missing, "clone3")
        if not futex_notified:
            rules.add_rule(sc.ERRNO(errno.EINVAL), "futex", sc.Arg(1, sc.MASKED_EQ, FUTEX_PRIVATE_FLAG, 0))
        for call in FUTEX2_CALLS:
            rules.add_rule(missing, call)
        with tempfile.TemporaryFile() as exported:  # libseccomp writes to a real descriptor
            rules.export_bpf(exported)
            exported.seek(0)
            return exported.read() or None
    except Exception:  # a libseccomp that cannot build it: no filter, and the warning says so
        return None


def program_fd(futex_notified: bool = False) -> int | None:
    """A pipe's read end holding :func:`program` (inheritable, for ``pass_fds``; the caller
    closes it after the start), or None without a program."""
    data = program(futex_notified)
    if data is None:
        return None
    read, write = os.pipe()
    try:
        os.write(write, data)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write)
    return read
