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
- one supervisor thread answers each such call one or two ticks of :data:`ANSWER_DELAY_S`
  after it came, and never lets the real call run (no ``SECCOMP_USER_NOTIF_FLAG_CONTINUE``, whose check of the
  arguments another thread of the bot could race): a wait (``FUTEX_WAIT``,
  ``FUTEX_WAIT_BITSET``) with ``EAGAIN``, "the word changed: look again", any other
  operation with ``EINVAL``, as bubblewrap's filter did (glibc ignores it on a wake). The
  answer depends on nothing but the operation: it carries nothing from another bot. A
  waiter looks again a few dozen times a second instead of millions. At most
  :data:`MAX_ANSWERS_PER_S` are taken a second (the referee's own CPU); beyond that the
  calls stay blocked in the kernel, costing nothing, and are answered later.

The listener is close-on-exec and no bot ever holds it. Where user notification is missing
(:func:`install_on_this_thread` returns None) bubblewrap's filter refuses every shared operation with
``EINVAL``, as before, and :data:`UNAVAILABLE_WARNING` is said at start.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import logging
import os
import select
import stat
import struct
import sys
import tempfile
import threading
import time

from referee.sandbox import bwrap

FUTEX_WAIT, FUTEX_WAIT_BITSET = 0, 9
WAIT_OPERATIONS = (FUTEX_WAIT, FUTEX_WAIT_BITSET)
FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME = 128, 256
ANSWER_DELAY_S = 0.02  # the supervisor's tick: a call is answered 20-40 ms after it came
MAX_ANSWERS_PER_S = 10_000  # a few µs of referee CPU each (bench/NOTES.md, B10)
PER_TICK = int(MAX_ANSWERS_PER_S * ANSWER_DELAY_S)
UNAVAILABLE_WARNING = (
    "sandbox: no seccomp user notification here (Linux 5.0+ and libseccomp 2.5+): a shared futex wait "
    "fails at once, so a Java bot's first thread spins on a core while the bot runs"
)

# <linux/seccomp.h>
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
SECCOMP_IOCTL_NOTIF_RECV = 0xC0502100  # _IOWR('!', 0, struct seccomp_notif): 80 bytes
SECCOMP_IOCTL_NOTIF_SEND = 0xC0182101  # _IOWR('!', 1, struct seccomp_notif_resp): 24 bytes
NOTIF_SIZE = 80  # struct seccomp_notif: id u64, pid u32, flags u32, then seccomp_data
OPERATION_OFFSET = 40  # seccomp_data: nr s32, arch u32, instruction_pointer u64, args[6] u64: args[1]
RESPONSE = struct.Struct("=QqiI")  # id, val, error, flags
PR_SET_NO_NEW_PRIVS = 38

log = logging.getLogger(__name__)
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


def answer_errno(operation: int) -> int:
    """The error a notified ``futex`` call with ``operation`` (its second argument) gets:
    ``EAGAIN`` for a wait, ``EINVAL`` for anything else."""
    command = operation & 0xFFFFFFFF & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)
    return errno.EAGAIN if command in WAIT_OPERATIONS else errno.EINVAL


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
    """Answers the notifications of one listener (see the module docstring) on a daemon
    thread of its own; never raises into the referee."""

    def __init__(self) -> None:
        """Start the thread (raises RuntimeError where no thread can start); it waits for
        :meth:`serve`, or ends at :meth:`give_up`."""
        self.listener = -1
        self.answered = 0  # notifications answered (read by tests and the benchmark)
        self._given = threading.Event()
        self.thread = threading.Thread(target=self._run, name="futex-supervisor", daemon=True)
        self.thread.start()

    def serve(self, listener: int) -> None:
        self.listener = listener
        self._given.set()

    def give_up(self) -> None:
        self._given.set()

    def _run(self) -> None:
        self._given.wait()
        if self.listener < 0:
            return
        try:
            self._answer_all()
        except BaseException:  # never into the referee; the waits then stay blocked, killable
            log.exception("futex supervisor stopped")

    def _answer_all(self) -> None:
        """In ticks of :data:`ANSWER_DELAY_S`: the calls taken at one tick are answered at the
        next (so 1-2 ticks after they came), and one wake-up a tick serves every bot; with
        nothing to answer the thread sleeps in ``poll`` until a call comes."""
        poller = select.poll()
        poller.register(self.listener, select.POLLIN)
        held: list[tuple[int, int]] = []
        idle = True
        while True:
            if idle:
                self._wait(poller, None)
                held = self._receive_all(poller)
            time.sleep(ANSWER_DELAY_S)
            for notification, error in held:
                self._answer(notification, error)
            received = self._receive_all(poller)
            idle = not held and not received
            held = received

    def _wait(self, poller: select.poll, timeout_ms: int | None) -> bool:
        """Whether a call is there to take (within ``timeout_ms``; None: until one comes)."""
        try:
            ready = poller.poll(timeout_ms)
        except InterruptedError:
            return False
        if ready and not ready[0][1] & select.POLLIN:
            log.warning("futex supervisor: listener polled %#x", ready[0][1])
            time.sleep(ANSWER_DELAY_S)  # never spin on a broken listener
            return False
        return bool(ready)

    def _receive_all(self, poller: select.poll) -> list[tuple[int, int]]:
        """Every call waiting now, up to :data:`PER_TICK`: (id, error to answer with)."""
        taken: list[tuple[int, int]] = []
        while len(taken) < PER_TICK and self._wait(poller, 0):
            received = self._receive()
            if received is None:
                break
            taken.append(received)
        return taken

    def _receive(self) -> tuple[int, int] | None:
        """The next notification's id and the error to answer it with; None when it went
        away (its thread was interrupted or died) or the call failed. Never blocks after a
        poll said POLLIN (a withdrawn notification makes it fail with ENOENT)."""
        notification = bytearray(NOTIF_SIZE)  # the kernel wants it zeroed
        try:
            fcntl.ioctl(self.listener, SECCOMP_IOCTL_NOTIF_RECV, notification, True)
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.EINTR):
                log.warning("futex supervisor: receive failed: %s", error)
                time.sleep(ANSWER_DELAY_S)  # never spin on a broken listener
            return None
        operation = int.from_bytes(notification[OPERATION_OFFSET : OPERATION_OFFSET + 8], sys.byteorder)
        return int.from_bytes(notification[:8], sys.byteorder), answer_errno(operation)

    def _answer(self, notification: int, error_number: int) -> None:
        try:
            fcntl.ioctl(self.listener, SECCOMP_IOCTL_NOTIF_SEND, RESPONSE.pack(notification, 0, -error_number, 0))
        except OSError as error:
            if error.errno != errno.ENOENT:  # ENOENT: its thread was interrupted or died meanwhile
                log.warning("futex supervisor: answer failed: %s", error)
        self.answered += 1


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
            except RuntimeError as error:
                _problem = f"no thread for its supervisor: {error}"
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
    if _supervisor is not None:
        try:
            os.close(_supervisor.listener)
        except OSError:
            pass
    _supervisor, _problem, _lock = None, None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
