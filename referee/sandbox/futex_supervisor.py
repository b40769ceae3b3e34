"""The futex supervisor: a small process of its own that answers the shared futex calls of
bubblewrap bots (:mod:`referee.sandbox.futexwait` says why and how they reach it).

A process, not a thread of the referee: a call is answered whatever the referee does
meanwhile. A thread of the referee would need the referee's interpreter lock to answer, and
the referee's own thread that carries the filter may make such a call (a C library joining a
thread waits on a shared futex) while holding that lock: the referee would wait for itself.

Standard library only, so that it starts in a few tens of ms:

    python futex_supervisor.py FD

FD is one end of a Unix socket pair. The referee sends the seccomp listener over it
(``SCM_RIGHTS``), then may send ``?`` to ask how many calls were answered (8 bytes back,
little-endian); when the referee's end closes (the referee ended, however it ended), the
supervisor exits.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
import struct
import sys
import time

FUTEX_WAIT, FUTEX_WAIT_BITSET = 0, 9
WAIT_OPERATIONS = (FUTEX_WAIT, FUTEX_WAIT_BITSET)
FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME = 128, 256
ANSWER_DELAY_S = 0.02  # the supervisor's tick: a call is answered 20-40 ms after it came
MAX_ANSWERS_PER_S = 10_000  # a few µs of CPU each (bench/NOTES.md, B10)
PER_TICK = int(MAX_ANSWERS_PER_S * ANSWER_DELAY_S)

# <linux/seccomp.h>
SECCOMP_IOCTL_NOTIF_RECV = 0xC0502100  # _IOWR('!', 0, struct seccomp_notif): 80 bytes
SECCOMP_IOCTL_NOTIF_SEND = 0xC0182101  # _IOWR('!', 1, struct seccomp_notif_resp): 24 bytes
NOTIF_SIZE = 80  # struct seccomp_notif: id u64, pid u32, flags u32, then seccomp_data
OPERATION_OFFSET = 40  # seccomp_data: nr s32, arch u32, instruction_pointer u64, args[6] u64: args[1]
RESPONSE = struct.Struct("=QqiI")  # id, val, error, flags
COUNT = struct.Struct("<Q")


def answer_errno(operation: int) -> int:
    """The error a notified ``futex`` call with ``operation`` (its second argument) gets:
    ``EAGAIN`` for a wait ("the word changed: look again"), ``EINVAL`` for anything else."""
    command = operation & 0xFFFFFFFF & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)
    return errno.EAGAIN if command in WAIT_OPERATIONS else errno.EINVAL


def _say(message: str) -> None:
    """A line on stderr (the referee's), never raising."""
    try:
        os.write(2, f"futex supervisor: {message}\n".encode())
    except OSError:
        pass


class _Answerer:
    def __init__(self, listener: int, control: socket.socket) -> None:
        self.listener = listener
        self.control = control
        self.answered = 0
        self.poller = select.poll()
        self.poller.register(listener, select.POLLIN)
        self.poller.register(control.fileno(), select.POLLIN)

    def run(self) -> None:
        """In ticks of :data:`ANSWER_DELAY_S`: the calls taken at one tick are answered at the
        next (so 1-2 ticks after they came); with nothing to answer it sleeps in ``poll``.
        Returns when the referee's end of the control socket is closed, or when no task
        carries the filter any more."""
        held: list[tuple[int, int]] = []
        while True:
            if held:
                time.sleep(ANSWER_DELAY_S)
                for notification, error in held:
                    self._answer(notification, error)
            if not self._serve(0 if held else None):
                return
            held = self._receive_all()

    def _serve(self, timeout_ms: int | None) -> bool:
        """Wait up to ``timeout_ms`` (None: until something comes) and serve the control
        socket; False once the referee's end is closed or the listener is done."""
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
        return True

    def _control(self) -> bool:
        """Answer a ``?``; False when the referee's end is closed."""
        try:
            data = self.control.recv(64)
        except OSError:
            return False
        if not data:
            return False
        for _ in range(data.count(b"?")):
            self.control.sendall(COUNT.pack(self.answered))
        return True

    def _receive_all(self) -> list[tuple[int, int]]:
        """Every call waiting now, up to :data:`PER_TICK`: (id, error to answer with)."""
        taken: list[tuple[int, int]] = []
        while len(taken) < PER_TICK:
            try:
                ready = select.select([self.listener], [], [], 0)[0]
            except InterruptedError:
                continue
            if not ready:
                break
            received = self._receive()
            if received is None:
                break
            taken.append(received)
        return taken

    def _receive(self) -> tuple[int, int] | None:
        """The next notification's id and the error to answer it with; None when it went
        away (its thread was interrupted or died) or the call failed."""
        notification = bytearray(NOTIF_SIZE)  # the kernel wants it zeroed
        try:
            fcntl.ioctl(self.listener, SECCOMP_IOCTL_NOTIF_RECV, notification, True)
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.EINTR):
                _say(f"receive failed: {error}")
                time.sleep(ANSWER_DELAY_S)  # never spin on a broken listener
            return None
        operation = int.from_bytes(notification[OPERATION_OFFSET : OPERATION_OFFSET + 8], sys.byteorder)
        return int.from_bytes(notification[:8], sys.byteorder), answer_errno(operation)

    def _answer(self, notification: int, error_number: int) -> None:
        try:
            fcntl.ioctl(self.listener, SECCOMP_IOCTL_NOTIF_SEND, RESPONSE.pack(notification, 0, -error_number, 0))
        except OSError as error:
            if error.errno != errno.ENOENT:  # ENOENT: its thread was interrupted or died meanwhile
                _say(f"answer failed: {error}")
        self.answered += 1


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    try:
        _message, fds, _flags, _address = socket.recv_fds(control, 16, 1)
    except OSError:
        return 0
    if not fds:
        return 0  # the referee gave up before loading the filter
    try:
        _Answerer(fds[0], control).run()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
