"""The seccomp filter bubblewrap loads just before it runs a bot (``bwrap --seccomp FD``;
docs/sandbox.md "The allowlist").

A bot may make the calls of :mod:`referee.sandbox.allowlist` and no other. Two variants:

- **refusing** (``futex_notified=False``): this filter is the whole allowlist. A call not on
  it fails with ``ENOSYS``, one refused on purpose with ``EPERM``; a shared ``futex`` with
  ``EINVAL``, which the C libraries take as "try again" (glibc's ``pthread_join``, the one
  shared wait of a process that shares no memory, then spins until the thread has ended).
  Nothing is named in the bot's log. Used where seccomp user notification is missing, and
  for bots started after the futex supervisor ended (:mod:`referee.sandbox.futexwait`).
- **notified** (``futex_notified=True``): the bot also carries the referee's notifying
  filter (:mod:`referee.sandbox.futexwait`), which holds the allowlist and sends every
  other call to the referee, who refuses it with the same errno and names it once in the
  bot's log. Of stacked filters the strictest action wins (``ERRNO`` before ``USER_NOTIF``
  before ``ALLOW``), so this one allows everything else and refuses only what the
  referee's filter must allow to bubblewrap's own start: the set-up calls
  (:data:`~referee.sandbox.allowlist.SETUP_ONLY`) and ``clone`` into new namespaces, with
  ``EPERM``, unnamed (no runtime needs them).

Both refuse ``clone3`` and the futex2 calls with ``ENOSYS``, unnamed (the C libraries fall
back to ``clone`` and ``futex`` at once). Calls of another architecture (a 32-bit entry)
kill the bot, as libseccomp does by default. Built with libseccomp through ``pyseccomp``
once per referee; None where that is not installed (the referee warns at start).
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile

from referee.sandbox import allowlist

MISSING_WARNING = (
    "sandbox: no seccomp filter (install libseccomp2 and the pyseccomp package): "
    "bots can make any system call, and pass data to each other through file locks, io_uring, keyrings and futexes"
)


@functools.cache
def program(futex_notified: bool = False) -> bytes | None:
    """The compiled BPF program (what ``bwrap --seccomp`` reads) of the variant (see the
    module docstring), or None where libseccomp or ``pyseccomp`` is missing. Built once per
    variant."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, OSError):
        return None
    try:
        deny = sc.ERRNO(errno.EPERM)
        if futex_notified:
            rules = sc.SyscallFilter(defaction=sc.ALLOW)
            for name in allowlist.SETUP_ONLY:
                allowlist.add_rule(rules, deny, name)
        else:
            rules = sc.SyscallFilter(defaction=sc.ERRNO(errno.ENOSYS))
            allowlist.add_allowed(rules, sc)
            for name in sorted(allowlist.refused_names()):
                allowlist.add_rule(rules, deny, name)
            for command in allowlist.LOCK_COMMANDS:
                allowlist.add_rule(rules, deny, "fcntl", sc.Arg(1, sc.MASKED_EQ, allowlist.LOW_32_BITS, command))
            shared = sc.Arg(1, sc.MASKED_EQ, allowlist.FUTEX_PRIVATE_FLAG, 0)
            allowlist.add_rule(rules, sc.ERRNO(errno.EINVAL), "futex", shared)
        allowlist.refuse_namespaces(rules, sc)
        for name in allowlist.SILENT:
            allowlist.add_rule(rules, sc.ERRNO(errno.ENOSYS), name)
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
        os.write(write, data)  # a few KiB: below a pipe's buffer
    finally:
        os.close(write)
    return read
