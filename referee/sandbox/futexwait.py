"""Shared futex waits of bubblewrap bots, answered by the referee (docs/sandbox.md "Threat
model": shared futexes).

A futex without ``FUTEX_PRIVATE_FLAG`` on a file mapping is keyed by the file's inode and
offset, the same in every sandbox: bots that both map a runtime file could pass each other
data through waiters on it, so it must never reach the kernel. Refused at once with
``EINVAL``, though, a wait that is legitimate turns into a busy loop: glibc's
``pthread_join`` waits on the thread's tid with a shared futex and takes ``EINVAL`` as "look
again" (the ``java`` launcher's first thread waits there for the JVM's whole life).

So, where the kernel has seccomp user notification (Linux 5.0+; its filter built by
libseccomp 2.5+):

- one thread of the referee, the one that starts bubblewrap bots
  (:func:`referee.sandbox.spawner.run_notified`), carries a seccomp filter that sends every
  shared ``futex`` call to the referee (:func:`notify_program`). A filter is inherited by
  every process started from that thread, kept across ``execve`` and never removed, so each
  bot and all its descendants have it. Bubblewrap's own filter, stacked on it, then leaves
  ``futex`` alone (:func:`referee.sandbox.seccomp.program`; of stacked filters the strictest
  action wins: ``ERRNO`` before ``USER_NOTIF`` before ``ALLOW``);
- one supervisor process (:mod:`referee.sandbox.futex_supervisor`; a process, so that it
  answers whatever the referee's own threads hold) answers each such call one or two ticks
  of :data:`ANSWER_DELAY_S` after it came, and never lets the real call run (no ``SECCOMP_USER_NOTIF_FLAG_CONTINUE``, whose check of the
  arguments another thread of the bot could race): a wait (``FUTEX_WAIT``,
  ``FUTEX_WAIT_BITSET``) with ``EAGAIN``, "the word changed: look again", any other
  operation with ``EINVAL``, as bubblewrap's filter did (glibc ignores it on a wake). The
  answer depends on nothing but the operation: it carries nothing from another bot. A
  waiter looks again a few dozen times a second instead of millions. At most
  :data:`MAX_ANSWERS_PER_S` are taken a second (the referee's own CPU); beyond that the
  calls stay blocked in the kernel, costing nothing, and are answered later.

The listener is handed to the supervisor and closed in the referee: no bot ever holds it.
Where user notification is missing (:func:`install_on_this_thread` returns None)
bubblewrap's filter refuses every shared operation with ``EINVAL``, as before, and
:data:`UNAVAILABLE_WARNING` is said at start.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from referee.sandbox import bwrap
from referee.sandbox.futex_supervisor import (  # noqa: F401 (the constants are this module's API too)
    ANSWER_DELAY_S,
    COUNT,
    FUTEX_CLOCK_REALTIME,
    FUTEX_PRIVATE_FLAG,
    FUTEX_WAIT,
    FUTEX_WAIT_BITSET,
    MAX_ANSWERS_PER_S,
    answer_errno,
)

UNAVAILABLE_WARNING = (
    "sandbox: no seccomp user notification here (Linux 5.0+ and libseccomp 2.5+): a shared futex wait "
    "fails at once, so a Java bot's first thread spins on a core while the bot runs"
)

# <linux/seccomp.h>
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
PR_SET_NO_NEW_PRIVS = 38

enabled = True  # the benchmark sets it False to start bots as where notification is missing


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@functools.cache
def notify_program() -> bytes | None:
    """The notifying filter (BPF, native architecture): a ``futex`` call without
    ``FUTEX_PRIVATE_FLAG`` in its operation's low 32 bits (the kernel ignores the others) ->
    ``SECCOMP_RET_USER_NOTIF``; everything else allowed. None where libseccomp, ``pyseccomp``
    or its user-notification action (libseccomp 2.5+) is missing."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]

        rules = sc.SyscallFilter(defaction=sc.ALLOW)
        rules.set_attr(sc.Attr.ACT_BADARCH, sc.ALLOW)  # bubblewrap's filter kills other architectures' calls
        rules.add_rule(sc.NOTIFY, "futex", sc.Arg(1, sc.MASKED_EQ, FUTEX_PRIVATE_FLAG, 0))
        with tempfile.TemporaryFile() as exported:
            rules.export_bpf(exported)
            exported.seek(0)
            return exported.read() or None
    except Exception:  # no pyseccomp, or a libseccomp without SCMP_ACT_NOTIFY
        return None


def _install(program: bytes) -> int:
    """Load ``program`` on the calling thread with a new listener; -> the listener (close
    on exec). Without ``CAP_SYS_ADMIN`` (a normal user) the thread first sets
    ``no_new_privs``, which its children inherit. Raises OSError."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    import pyseccomp as sc

    number = sc.resolve_syscall(sc.Arch.NATIVE, "seccomp")
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _Fprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))

    def load() -> int:
        return int(libc.syscall(number, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, ctypes.byref(fprog)))

    listener = load()
    if listener < 0 and ctypes.get_errno() == errno.EACCES:
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        listener = load()
    if listener < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER): {os.strerror(error)}")
    return listener


def _setuid_bwrap() -> bool:
    """Whether ``bwrap`` is set-uid (a host without unprivileged user namespaces): a thread
    with ``no_new_privs`` would start it without its privileges."""
    found = bwrap.executable()
    try:
        return found is not None and bool(os.stat(found).st_mode & stat.S_ISUID)
    except OSError:
        return False


class Supervisor:
    """The supervisor process (:mod:`referee.sandbox.futex_supervisor`) and the referee's
    end of its control socket. Never raises into the referee after it started."""

    def __init__(self) -> None:
        """Start the process, before any filter is loaded (so that it has none). Raises
        OSError where it cannot start."""
        self._control, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-S", "-E", str(Path(__file__).with_name("futex_supervisor.py")), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, close_fds=True,
                start_new_session=True,  # Ctrl-C is the referee's to handle; it ends when its socket closes
            )  # fmt: skip
        finally:
            theirs.close()
        self._lock = threading.Lock()

    def serve(self, listener: int) -> None:
        """Hand ``listener`` to the process and close it here."""
        try:
            socket.send_fds(self._control, [b"L"], [listener])
        finally:
            os.close(listener)

    def give_up(self) -> None:
        """No listener after all: the process ends."""
        self._control.close()

    @property
    def answered(self) -> int:
        """How many calls the process has answered (the tests and the benchmark); -1 when it
        cannot say."""
        with self._lock:
            try:
                self._control.sendall(b"?")
                data = b""
                while len(data) < COUNT.size:
                    chunk = self._control.recv(COUNT.size - len(data))
                    if not chunk:
                        return -1
                    data += chunk
            except OSError:
                return -1
        return int(COUNT.unpack(data)[0])


_supervisor: Supervisor | None = None
_problem: str | None = None
_lock = threading.Lock()


def install_on_this_thread() -> Supervisor | None:
    """Load the notifying filter on the calling thread (for good) and start its supervisor;
    -> the supervisor, or None where user notification is not available here (why:
    :func:`problem`). Called once, by the thread that starts bubblewrap bots
    (:func:`referee.sandbox.spawner.run_notified`)."""
    global _supervisor, _problem
    with _lock:
        if _supervisor is not None:
            return _supervisor
        program = notify_program()
        if program is None:
            _problem = "no libseccomp 2.5+ with pyseccomp"
        elif os.geteuid() != 0 and _setuid_bwrap():
            _problem = "bwrap is set-uid here"
        else:
            try:
                supervisor = Supervisor()  # first: a filter must never be loaded without one
            except OSError as error:
                _problem = f"its supervisor did not start: {error}"
                return None
            try:
                supervisor.serve(_install(program))
            except Exception as error:  # OSError from the kernel; anything else from ctypes or pyseccomp
                supervisor.give_up()
                _problem = str(error)
                return None
            _supervisor = supervisor
        return _supervisor


def problem() -> str | None:
    """Why user notification is not used here (after :func:`install_on_this_thread`)."""
    return _problem if enabled else "turned off"


def supervisor() -> Supervisor | None:
    """The running supervisor (after :func:`install_on_this_thread`), or None."""
    return _supervisor


def _forget_after_fork() -> None:
    """A forked child of the referee has neither the filtered thread nor the supervisor."""
    global _supervisor, _problem, _lock
    _supervisor, _problem, _lock = None, None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
