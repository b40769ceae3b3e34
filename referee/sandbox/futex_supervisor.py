"""The futex supervisor: a small process of its own that answers what the referee's notifying
seccomp filter sends it from bubblewrap bots (:mod:`referee.sandbox.futexwait` says why and
how the calls reach it): their shared futex calls, and every call that is not on the
allowlist (:mod:`referee.sandbox.allowlist`).

A process, not a thread of the referee: a call is answered whatever the referee does
meanwhile. A thread of the referee would need the referee's interpreter lock to answer, and
the referee's own thread that carries the filter may make such a call (a C library joining a
thread waits on a shared futex) while holding that lock: the referee would wait for itself.

Standard library only, so that it starts in a few tens of ms:

    python futex_supervisor.py FD

FD is one end of a Unix socket pair. The referee sends the seccomp listener over it
(``SCM_RIGHTS``) with a JSON object :class:`Setup` describes; then may send ``?`` to ask
how many futex calls were answered (a :data:`RECORD` of kind ``C`` back). When the
referee's end closes (the referee ended, however it ended), the supervisor exits.

What it answers, never letting a call run unless it comes from the sandbox's own start:

- a shared ``futex`` call: a wait (``FUTEX_WAIT``, ``FUTEX_WAIT_BITSET``) ``EAGAIN``, "the
  word changed: look again", anything else ``EINVAL``, after it was held one tick of
  :data:`ANSWER_DELAY_S` (so 20-40 ms after it came). The answer depends on nothing but the
  operation: it carries nothing from another bot;
- a call of a bot that is not on the allowlist: refused at once with the errno the referee
  gave for it (``EPERM`` for a call refused on purpose, else ``ENOSYS``), and reported to
  the referee once per bot process and call (a :data:`RECORD` of kind ``R``), which names it
  in the bot's log;
- such a call from a task that is not yet a bot's (the referee's spawning thread, the
  wrapper, bubblewrap setting up: they carry the referee's filter but not yet the bot's own,
  so ``Seccomp_filters`` in ``/proc/<tid>/status`` is at most what the spawning thread has):
  let run (``SECCOMP_USER_NOTIF_FLAG_CONTINUE``; the decision depends on the caller's filter
  count, which only ever grows, never on arguments another thread could change).

**A fair share.** Each call is filed under the bot it came from (its PID namespace). At each
tick the held calls that are due are answered round-robin over the bots, at most
:data:`PER_TICK` in all; a bot's refused calls beyond :data:`REFUSALS_PER_TICK` in one tick
are held like waits. So one bot's flood of calls (every thread looping on a shared wait)
delays another bot's calls by no more than the tick it would have waited anyway; at most
:data:`MAX_HELD` calls are held, the rest wait in the kernel, costing nothing.
"""

from __future__ import annotations

import collections
import errno
import fcntl
import json
import os
import select
import socket
import struct
import sys
import time
from dataclasses import dataclass

FUTEX_WAIT, FUTEX_WAIT_BITSET = 0, 9
WAIT_OPERATIONS = (FUTEX_WAIT, FUTEX_WAIT_BITSET)
FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME = 128, 256
ANSWER_DELAY_S = 0.02  # the supervisor's tick: a shared futex call is answered 20-40 ms after it came
MAX_ANSWERS_PER_S = 10_000  # the referee's CPU: bench/NOTES.md, B10
PER_TICK = int(MAX_ANSWERS_PER_S * ANSWER_DELAY_S)
REFUSALS_PER_TICK = 50  # a bot's refused calls answered at once in one tick; more are held
MAX_HELD = 4096  # calls held at once; beyond that they wait in the kernel
CONTINUE = -1  # the answer "let it run" (a task not yet a bot's)
LOW_32_BITS = 0xFFFFFFFF

# <linux/seccomp.h>
SECCOMP_IOCTL_NOTIF_RECV = 0xC0502100  # _IOWR('!', 0, struct seccomp_notif): 80 bytes
SECCOMP_IOCTL_NOTIF_SEND = 0xC0182101  # _IOWR('!', 1, struct seccomp_notif_resp): 24 bytes
SECCOMP_USER_NOTIF_FLAG_CONTINUE = 1
NOTIF_SIZE = 80  # struct seccomp_notif: id u64, pid u32, flags u32, then seccomp_data
NOTIF = struct.Struct("=QIIiIQ6Q")  # id, pid, flags; seccomp_data: nr, arch, instruction pointer, args[6]
RESPONSE = struct.Struct("=QqiI")  # id, val, error, flags
RECORD = struct.Struct("<c3xiiQQ")  # to the referee: kind (C: count in a; R: refused: bwrap pid, call number, args 0 and 1)


@dataclass(frozen=True)
class Setup:
    """What the referee tells the supervisor with the listener (JSON): the call numbers of
    ``futex``, ``fcntl`` and ``socket``; ``eperm``: the numbers refused on purpose;
    ``locks``: the ``fcntl`` commands refused on purpose; ``filters``: the seccomp filters of
    the referee's spawning thread (a task with more is a bot's)."""

    futex: int
    fcntl: int
    socket: int
    eperm: frozenset[int]
    locks: frozenset[int]
    filters: int

    @classmethod
    def parse(cls, data: bytes) -> Setup:
        raw = json.loads(data)
        return cls(raw["futex"], raw["fcntl"], raw["socket"], frozenset(raw["eperm"]), frozenset(raw["locks"]), raw["filters"])


def answer_errno(operation: int) -> int:
    """The error a notified ``futex`` call with ``operation`` (its second argument) gets:
    ``EAGAIN`` for a wait ("the word changed: look again"), ``EINVAL`` for anything else."""
    command = operation & LOW_32_BITS & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)
    return errno.EAGAIN if command in WAIT_OPERATIONS else errno.EINVAL


def _say(message: str) -> None:
    """A line on stderr (the referee's), never raising."""
    try:
        os.write(2, f"futex supervisor: {message}\n".encode())
    except OSError:
        pass


def status_fields(tid: int) -> dict[str, str]:
    """The fields of ``/proc/<tid>/status`` (empty when the task is gone). The task's name,
    which it chooses, cannot add a line: the kernel escapes its newlines."""
    try:
        with open(f"/proc/{tid}/status", "rb") as status:
            text = status.read().decode(errors="replace")
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def namespace_of(tid: int) -> int:
    """The inode of the task's PID namespace (one per sandbox), 0 when it is gone."""
    try:
        return os.stat(f"/proc/{tid}/ns/pid").st_ino
    except OSError:
        return 0


class _Answerer:
    def __init__(self, listener: int, control: socket.socket, setup: Setup, referee: int) -> None:
        self.listener = listener
        self.control = control
        self.setup = setup
        self.referee = referee
        self.answered = 0
        self.poller = select.poll()
        self.poller.register(listener, select.POLLIN)
        self.poller.register(control.fileno(), select.POLLIN)
        self.held: dict[int, collections.deque[tuple[int, int]]] = {}  # bot -> (notification id, error to answer)
        self.held_count = 0
        self.refused_now: collections.Counter[int] = collections.Counter()  # bot -> refusals answered this tick
        self.told: set[tuple[int, int, int]] = set()  # (bot, call, detail) already reported
        self.sandbox_of: dict[int, int] = {}  # bot (namespace) -> the pid of its bubblewrap

    def run(self) -> None:
        """In ticks of :data:`ANSWER_DELAY_S` while anything is held: at each tick the held
        calls are answered (:meth:`_tick`), then every call waiting is taken, to be
        answered at the next tick (so a shared futex call is answered 1-2 ticks after it
        came); with nothing held it sleeps in ``poll`` until a call comes. Returns when the
        referee's end of the control socket is closed, or when no task carries the filter
        any more."""
        while True:
            if self.held_count:
                time.sleep(ANSWER_DELAY_S)
                self._tick()
                self.refused_now.clear()
            if not self._serve(0 if self.held_count else None):
                return

    def _serve(self, timeout_ms: int | None) -> bool:
        """Wait up to ``timeout_ms`` (None: until something comes), serve the control socket
        and take every call waiting; False once the referee's end is closed or the listener
        is done."""
        try:
            ready = self.poller.poll(timeout_ms)
        except InterruptedError:
            return True
        for fd, events in ready:
            if fd != self.listener:
                if not self._control():
                    return False
            elif not events & select.POLLIN:  # POLLHUP: no task carries the filter any more (the referee is ending)
                return False  # closing the listener makes any call still to come fail, never wait
            else:
                self._receive_all()
        return True

    def _control(self) -> bool:
        """Answer a ``?``; False when the referee's end is closed."""
        try:
            data = self.control.recv(64)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        for _ in range(data.count(b"?")):
            self._send(RECORD.pack(b"C", 0, 0, self.answered, 0))
        return True

    def _send(self, record: bytes) -> None:
        """A record to the referee; dropped rather than waited for when its socket is full
        (a referee that does not read must never stall the answers)."""
        try:
            self.control.send(record)
        except OSError:
            pass

    def _receive_all(self) -> None:
        """Every call waiting now (until :data:`MAX_HELD` are held): answered at once, or filed."""
        while self.held_count < MAX_HELD:
            try:
                if not select.select([self.listener], [], [], 0)[0]:
                    return
            except InterruptedError:
                continue
            notification = bytearray(NOTIF_SIZE)  # the kernel wants it zeroed
            try:
                fcntl.ioctl(self.listener, SECCOMP_IOCTL_NOTIF_RECV, notification, True)
            except OSError as error:
                if error.errno not in (errno.ENOENT, errno.EINTR):
                    _say(f"receive failed: {error}")
                    time.sleep(ANSWER_DELAY_S)  # never spin on a broken listener
                    return
                continue
            self._take(*NOTIF.unpack(notification))

    def _take(self, ident: int, tid: int, _flags: int, call: int, _arch: int, _ip: int, *args: int) -> None:
        if call == self.setup.futex:
            self._hold(namespace_of(tid), ident, answer_errno(args[1]))
            return
        fields = status_fields(tid)
        if not fields:
            return  # the task is gone: so is its call
        if int(fields.get("Seccomp_filters", "0")) <= self.setup.filters:
            self._answer(ident, CONTINUE)  # the sandbox's own start, not yet a bot
            return
        command = args[1] & LOW_32_BITS
        refused = call in self.setup.eperm or (call == self.setup.fcntl and command in self.setup.locks)
        bot = namespace_of(tid)
        detail = command if call == self.setup.fcntl else args[0] & LOW_32_BITS if call == self.setup.socket else 0
        if (bot, call, detail) not in self.told:
            self.told.add((bot, call, detail))
            self._send(RECORD.pack(b"R", self._sandbox(bot, tid, fields), call, args[0], args[1]))
        error = errno.EPERM if refused else errno.ENOSYS
        if self.refused_now[bot] < REFUSALS_PER_TICK:
            self.refused_now[bot] += 1
            self._answer(ident, error)
        else:
            self._hold(bot, ident, error)

    def _sandbox(self, bot: int, tid: int, fields: dict[str, str]) -> int:
        """The pid of the bubblewrap whose sandbox ``tid`` is in: the ancestor whose parent
        is the referee (0 when the chain is broken)."""
        if bot in self.sandbox_of:
            return self.sandbox_of[bot]
        found = 0
        for _ in range(16):
            if not fields:
                break
            parent = int(fields.get("PPid", "0"))
            if parent == self.referee:
                found = int(fields.get("Tgid", "0"))
                break
            if parent <= 1:
                break
            fields = status_fields(parent)
        if found:
            self.sandbox_of[bot] = found
        return found

    def _hold(self, bot: int, ident: int, error: int) -> None:
        self.held.setdefault(bot, collections.deque()).append((ident, error))
        self.held_count += 1

    def _tick(self) -> None:
        """Answer the held calls (all taken at an earlier tick) round-robin over the bots, at
        most :data:`PER_TICK`; the rest wait for the next tick, ahead of newer ones."""
        budget = PER_TICK
        while budget > 0 and self.held:
            for bot in list(self.held):
                queue = self.held[bot]
                ident, error = queue.popleft()
                self.held_count -= 1
                self._answer(ident, error)
                self.answered += 1
                budget -= 1
                if not queue:
                    del self.held[bot]
                if budget == 0:
                    return

    def _answer(self, ident: int, error_number: int) -> None:
        if error_number == CONTINUE:
            response = RESPONSE.pack(ident, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE)
        else:
            response = RESPONSE.pack(ident, 0, -error_number, 0)
        try:
            fcntl.ioctl(self.listener, SECCOMP_IOCTL_NOTIF_SEND, response)
        except OSError as error:
            if error.errno != errno.ENOENT:  # ENOENT: its thread was interrupted or died meanwhile
                _say(f"answer failed: {error}")


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    try:
        message, fds, _flags, _address = socket.recv_fds(control, 65536, 1)
    except OSError:
        return 0
    if not fds:
        return 0  # the referee gave up before loading the filter
    control.setblocking(False)
    try:
        _Answerer(fds[0], control, Setup.parse(message), os.getppid()).run()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
