"""The referee's notifying seccomp filter for bubblewrap bots, and its supervisor
(docs/sandbox.md "The allowlist", "Shared futexes").

Where the kernel has seccomp user notification with its ``CONTINUE`` answer and shows a
task's filters (Linux 5.9+; the filter built by libseccomp 2.5+):

- one thread of the referee, the one that starts bubblewrap bots
  (:func:`referee.sandbox.spawner.run_notified`), carries a filter (:func:`notify_program`)
  that allows the allowlist (:mod:`referee.sandbox.allowlist`, private futexes only) and
  what bubblewrap's own set-up needs, and sends every other call to the referee. A filter
  is inherited by every process started from that thread, kept across ``execve`` and never
  removed, so each bot and all its descendants have it. Bubblewrap's own filter, stacked on
  it just before the bot runs, refuses the set-up calls to the bot
  (:func:`referee.sandbox.seccomp.program`; of stacked filters the strictest action wins:
  ``ERRNO`` before ``USER_NOTIF`` before ``ALLOW``);
- one supervisor process (:mod:`referee.sandbox.futex_supervisor`; a process, so that it
  answers whatever the referee's own threads hold) answers each call: a shared futex call
  one or two ticks of :data:`ANSWER_DELAY_S` after it came, and never lets it run (no
  ``CONTINUE``, whose check of the arguments another thread of the bot could race): a wait
  ``EAGAIN``, "the word changed: look again", anything else ``EINVAL``. Glibc's
  ``pthread_join`` (the one shared wait of a process that shares no memory) then looks
  again a few dozen times a second instead of millions. A bot's call off the allowlist is
  refused at once (``EPERM`` or ``ENOSYS``, :func:`referee.sandbox.allowlist.refusal`) and
  reported here once, which names it in the bot's log
  (:func:`referee.sandbox.process.note_refused`). A call from the sandbox's own start
  (bubblewrap setting up; it has not loaded the bot's filter yet) is let run.

The listener never reaches a bot: it is close-on-exec, handed to the supervisor, and kept
by the referee only to hand it to a replacement. **If the supervisor ends** (it was killed,
it crashed), the referee says so in one line; a replacement answers the bots already
running (a shared wait answered ``ENOSYS`` by a kernel with no listener makes glibc abort
the bot, which would be charged for the host's trouble), and bots started from then on get
bubblewrap's refusing filter (:func:`ended`). Where user notification is missing
(:func:`install_on_this_thread` returns None), bubblewrap's refusing filter is the whole
allowlist (shared futex calls refused with ``EINVAL``, refused calls not named), and
:data:`UNAVAILABLE_WARNING` is said at start.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import logging
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from referee.sandbox import allowlist, bwrap
from referee.sandbox.futex_supervisor import (  # noqa: F401 (the constants are this module's API too)
    ANSWER_DELAY_S,
    FUTEX_CLOCK_REALTIME,
    FUTEX_PRIVATE_FLAG,
    FUTEX_WAIT,
    FUTEX_WAIT_BITSET,
    MAX_ANSWERS_PER_S,
    PER_TICK,
    RECORD,
    answer_errno,
)

UNAVAILABLE_WARNING = (
    "sandbox: no seccomp user notification here (Linux 5.9+ and libseccomp 2.5+): a shared futex wait "
    "fails at once, so a Java bot's first thread spins on a core while the bot runs, and a call a bot is "
    "refused is not named in its log"
)
REPLACEMENTS = 3  # supervisors started after the first one ended, for the bots already running

# <linux/seccomp.h>
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
PR_SET_NO_NEW_PRIVS = 38

enabled = True  # the benchmark sets it False to start bots as where notification is missing
log = logging.getLogger("referee.sandbox")


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@functools.cache
def notify_program() -> bytes | None:
    """The notifying filter (BPF, native architecture): the allowlist
    (:func:`referee.sandbox.allowlist.add_allowed`, ``clone`` with any flags), the set-up
    calls bubblewrap makes (:data:`~referee.sandbox.allowlist.SETUP_ONLY`) and the calls
    bubblewrap's filter refuses silently (:data:`~referee.sandbox.allowlist.SILENT`)
    allowed; everything else -> ``SECCOMP_RET_USER_NOTIF`` (a shared ``futex`` among them).
    None where libseccomp, ``pyseccomp`` or its user-notification action (libseccomp 2.5+)
    is missing."""
    try:
        import pyseccomp as sc  # type: ignore[import-untyped]

        rules = sc.SyscallFilter(defaction=sc.NOTIFY)
        rules.set_attr(sc.Attr.ACT_BADARCH, sc.ALLOW)  # bubblewrap's filter kills other architectures' calls
        allowlist.add_allowed(rules, sc, any_clone=True)
        for name in (*allowlist.SETUP_ONLY, *allowlist.SILENT):
            allowlist.add_rule(rules, sc.ALLOW, name)
        with tempfile.TemporaryFile() as exported:
            rules.export_bpf(exported)
            exported.seek(0)
            return exported.read() or None
    except Exception:  # no pyseccomp, or a libseccomp without SCMP_ACT_NOTIFY
        return None


def _number(name: str) -> int:
    import pyseccomp as sc

    return int(sc.resolve_syscall(sc.Arch.NATIVE, name))


def _setup(filters: int) -> bytes:
    """What the supervisor is told with the listener (:class:`futex_supervisor.Setup`)."""
    eperm = sorted(number for name in allowlist.refused_names() if (number := _number(name)) >= 0)
    setup = {
        "futex": _number("futex"), "fcntl": _number("fcntl"), "socket": _number("socket"), "eperm": eperm,
        "locks": list(allowlist.LOCK_COMMANDS), "filters": filters,
    }  # fmt: skip
    return json.dumps(setup).encode()


def _filters_here() -> int | None:
    """How many seccomp filters the calling thread carries (``Seccomp_filters``, Linux
    5.9+), None where the kernel does not say."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/status") as status:
            for line in status:
                if line.startswith("Seccomp_filters:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _install(program: bytes) -> int:
    """Load ``program`` on the calling thread with a new listener; -> the listener (close
    on exec). Without ``CAP_SYS_ADMIN`` (a normal user) the thread first sets
    ``no_new_privs``, which its children inherit. Raises OSError."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _Fprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    number = _number("seccomp")

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
    end of its control socket, read by one thread of the referee (records of
    :data:`~referee.sandbox.futex_supervisor.RECORD`). Never raises into the referee after
    it started."""

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
        self._counted = threading.Condition()
        self._count: int | None = None
        self._asked = 0
        self.ended = False

    def serve(self, listener: int, setup: bytes) -> None:
        """Hand ``listener`` and ``setup`` to the process (the caller keeps ``listener``),
        and start reading what it reports."""
        socket.send_fds(self._control, [setup], [listener])
        threading.Thread(target=self._read, name="kwhist-futex-supervisor", daemon=True).start()

    def give_up(self) -> None:
        """No listener after all: the process ends."""
        self._control.close()

    def _read(self) -> None:
        """Until the process's end of the socket closes: counts to :attr:`answered`, refused
        calls to the bots' logs; then :func:`_supervisor_ended`."""
        buffered = b""
        while True:
            try:
                data = self._control.recv(RECORD.size * 64)
            except OSError:
                data = b""
            if not data:
                break
            buffered += data
            while len(buffered) >= RECORD.size:
                kind, pid, number, first, second = RECORD.unpack_from(buffered)
                buffered = buffered[RECORD.size :]
                if kind == b"C":
                    with self._counted:
                        self._count = first
                        self._counted.notify_all()
                elif kind == b"R":
                    _refused(pid, number, first, second)
        with self._counted:
            self.ended = True
            self._counted.notify_all()
        _supervisor_ended(self)

    @property
    def answered(self) -> int:
        """How many futex calls the process has answered (the tests and the benchmark); -1
        when it cannot say."""
        with self._lock, self._counted:
            self._count = None
            try:
                self._control.sendall(b"?")
            except OSError:
                return -1
            self._counted.wait_for(lambda: self._count is not None or self.ended, timeout=10.0)
            return -1 if self._count is None else self._count


def _refused(pid: int, number: int, first: int, second: int) -> None:
    """A bot (the one whose bubblewrap is ``pid``) was refused call ``number``: name it in
    its log, once (``first``, ``second``: the call's first two arguments)."""
    from referee.sandbox.process import note_refused

    try:
        import pyseccomp as sc

        name = sc.resolve_syscall(sc.Arch.NATIVE, number).decode()
    except Exception:
        name = f"system call {number}"
    detail = second if name == "fcntl" else first if name == "socket" else None
    note_refused(pid, name, allowlist.refused_line(name, detail))


_supervisor: Supervisor | None = None
_listener: int | None = None  # kept for a replacement supervisor
_setup_sent: bytes = b""
_problem: str | None = None
_ended: str | None = None
_replaced = 0
_lock = threading.Lock()


def install_on_this_thread() -> Supervisor | None:
    """Load the notifying filter on the calling thread (for good) and start its supervisor;
    -> the supervisor, or None where user notification is not available here (why:
    :func:`problem`). Called once, by the thread that starts bubblewrap bots
    (:func:`referee.sandbox.spawner.run_notified`)."""
    global _supervisor, _problem, _listener, _setup_sent
    with _lock:
        if _supervisor is not None:
            return _supervisor
        program = notify_program()
        before = _filters_here()
        if program is None:
            _problem = "no libseccomp 2.5+ with pyseccomp"
        elif before is None:
            _problem = "the kernel does not show a task's seccomp filters (Linux 5.9+)"
        elif os.geteuid() != 0 and _setuid_bwrap():
            _problem = "bwrap is set-uid here"
        else:
            try:
                supervisor = Supervisor()  # first: a filter must never be loaded without one
            except OSError as error:
                _problem = f"its supervisor did not start: {error}"
                return None
            try:
                listener = _install(program)
                setup = _setup(before + 1)
                supervisor.serve(listener, setup)
            except Exception as error:  # OSError from the kernel; anything else from ctypes or pyseccomp
                supervisor.give_up()
                _problem = str(error)
                return None
            _supervisor, _listener, _setup_sent = supervisor, listener, setup
        return _supervisor


def _supervisor_ended(which: Supervisor) -> None:
    """The supervisor ``which`` ended (its socket closed): say so once, and hand the
    listener to a replacement for the bots already running, up to :data:`REPLACEMENTS`
    times (then the listener is closed: their calls fail at once). Bots started from now
    on get bubblewrap's refusing filter (:func:`ended`)."""
    global _supervisor, _ended, _replaced, _listener
    with _lock:
        if which is not _supervisor or _listener is None:
            return  # the referee is ending, or an earlier one
        code = which.process.poll()
        if _ended is None:
            _ended = f"exit code {code}" if code is not None else "its socket closed"
            log.warning(
                "sandbox: the futex supervisor ended (%s): a replacement answers the bots already running; "
                "bots started from now on get the refusing filter (a shared futex wait fails at once and spins, "
                "a refused call is not named in their logs)", _ended,
            )  # fmt: skip
        if _replaced >= REPLACEMENTS:
            os.close(_listener)
            _listener = None
            return
        _replaced += 1
        try:
            replacement = Supervisor()
            replacement.serve(_listener, _setup_sent)
        except OSError:
            os.close(_listener)
            _listener = None
            return
        _supervisor = replacement


def problem() -> str | None:
    """Why user notification is not used here (after :func:`install_on_this_thread`)."""
    return _problem if enabled else "turned off"


def ended() -> str | None:
    """Why the supervisor ended during this run (bots started from then on get bubblewrap's
    refusing filter), or None while the first one runs."""
    return _ended


def supervisor() -> Supervisor | None:
    """The running supervisor (after :func:`install_on_this_thread`), or None."""
    return _supervisor


def _forget_after_fork() -> None:
    """A forked child of the referee has neither the filtered thread nor the supervisor."""
    global _supervisor, _problem, _lock, _listener, _ended, _replaced
    if _listener is not None:
        os.close(_listener)
    _supervisor, _problem, _lock, _listener, _ended, _replaced = None, None, threading.Lock(), None, None, 0


os.register_at_fork(after_in_child=_forget_after_fork)
