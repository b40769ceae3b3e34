"""Issue 35: two bots try to pass a hand through io_uring's futex operations on a file both map.

io_uring (Linux 6.7+) waits on and wakes *shared* futexes inside the kernel
(``IORING_OP_FUTEX_WAIT``, ``IORING_OP_FUTEX_WAKE``), with no system call per operation, so a
filter that only looks at ``futex`` never sees them. Both bots map the first page of the
runtime's ``os.py`` (read-only, private: a shared futex on a file page is keyed by its inode
and offset, the same in every sandbox). Card ``c`` (0-51) is the word at offset ``4 c``.

``send``: a thread wakes the waiters on the words of the cards of its current hand through
its ring, over and over. ``receive``: on its 3rd decision queues a wait on each of the 52
words, gives them 0.5 s, and reports the cards whose wait was woken, or the errno that
refused its ring, as a ``malformed`` fault: ``CHANNEL <json>``."""

import ctypes
import errno
import json
import mmap
import os
import sys
import threading
import time

from onthird import OnThird, serve_misbehaving
from referee.botkit import serve

IO_URING_SETUP, IO_URING_ENTER = 425, 426  # x86_64 and arm64 share the newer numbers
OP_FUTEX_WAIT, OP_FUTEX_WAKE = 51, 52
FUTEX2_SIZE_U32 = 0x02  # without FUTEX2_PRIVATE: shared
MATCH_ANY = 0xFFFFFFFF
ENTER_GETEVENTS = 1
OFF_SQ_RING, OFF_CQ_RING, OFF_SQES = 0, 0x8000000, 0x10000000
RANKS, SUITS = "23456789TJQKA", "SHDC"
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
PAGE = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE, os.open(os.__file__, os.O_RDONLY), 0)
hand: list[int] = []
told: set[str] = set()


class SqOffsets(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("head", "tail", "ring_mask", "ring_entries", "flags", "dropped", "array", "resv1")] + [("user_addr", ctypes.c_uint64)]


class CqOffsets(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("head", "tail", "ring_mask", "ring_entries", "overflow", "cqes", "flags", "resv1")] + [("user_addr", ctypes.c_uint64)]


class Params(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("sq_entries", "cq_entries", "flags", "sq_thread_cpu", "sq_thread_idle", "features", "wq_fd")] + [
        ("resv", ctypes.c_uint32 * 3), ("sq_off", SqOffsets), ("cq_off", CqOffsets)]


class Sqe(ctypes.Structure):
    _fields_ = [("opcode", ctypes.c_uint8), ("flags", ctypes.c_uint8), ("ioprio", ctypes.c_uint16), ("fd", ctypes.c_int32),
                ("addr2", ctypes.c_uint64), ("addr", ctypes.c_uint64), ("len", ctypes.c_uint32), ("op_flags", ctypes.c_uint32),
                ("user_data", ctypes.c_uint64), ("buf_index", ctypes.c_uint16), ("personality", ctypes.c_uint16),
                ("file_index", ctypes.c_int32), ("addr3", ctypes.c_uint64), ("pad", ctypes.c_uint64)]


class Ring:
    """A minimal io_uring: queue futex operations, submit them, read their completions.
    Raises OSError (its errno) where io_uring_setup is refused."""

    def __init__(self, entries: int = 64) -> None:
        self.params = Params()
        fd = libc.syscall(IO_URING_SETUP, entries, ctypes.byref(self.params))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "io_uring_setup")
        self.fd = fd
        p = self.params
        sq_size = p.sq_off.array + p.sq_entries * 4
        cq_size = p.cq_off.cqes + p.cq_entries * 16
        shared = mmap.PROT_READ | mmap.PROT_WRITE
        self.sq = libc.mmap(None, sq_size, shared, mmap.MAP_SHARED, fd, OFF_SQ_RING)
        self.cq = libc.mmap(None, cq_size, shared, mmap.MAP_SHARED, fd, OFF_CQ_RING)
        self.sqes = libc.mmap(None, p.sq_entries * 64, shared, mmap.MAP_SHARED, fd, OFF_SQES)
        self.queued = 0

    def _u32(self, base: int, offset: int) -> ctypes.c_uint32:
        return ctypes.c_uint32.from_address(base + offset)

    def futex(self, opcode: int, card: int, value: int) -> None:
        p = self.params
        tail = self._u32(self.sq, p.sq_off.tail)
        index = tail.value & self._u32(self.sq, p.sq_off.ring_mask).value
        sqe = Sqe.from_address(self.sqes + 64 * index)
        ctypes.memset(ctypes.addressof(sqe), 0, 64)
        sqe.opcode, sqe.fd, sqe.addr, sqe.addr2, sqe.addr3, sqe.user_data = opcode, FUTEX2_SIZE_U32, PAGE + 4 * card, value, MATCH_ANY, card
        self._u32(self.sq, p.sq_off.array + 4 * index).value = index
        tail.value += 1
        self.queued += 1

    def submit(self, wait: int = 0) -> int:
        done = libc.syscall(IO_URING_ENTER, self.fd, self.queued, wait, ENTER_GETEVENTS if wait else 0, None, 0)
        self.queued = 0
        if done < 0:
            raise OSError(ctypes.get_errno(), "io_uring_enter")
        return int(done)

    def completions(self) -> list[tuple[int, int]]:
        """(user_data, result) of every completion so far."""
        p = self.params
        head, tail = self._u32(self.cq, p.cq_off.head), self._u32(self.cq, p.cq_off.tail)
        mask = self._u32(self.cq, p.cq_off.ring_mask).value
        found = []
        while head.value != tail.value:
            at = self.cq + p.cq_off.cqes + 16 * (head.value & mask)
            found.append((ctypes.c_uint64.from_address(at).value, ctypes.c_int32.from_address(at + 8).value))
            head.value += 1
        return found


def index(card: object) -> int:
    text = str(card)
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def word(card: int) -> int:
    return ctypes.c_uint32.from_address(PAGE + 4 * card).value


def error_name(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, str(error.errno))


def signal_forever(ring: Ring) -> None:
    while True:
        for card in list(hand):
            ring.futex(OP_FUTEX_WAKE, card, 2**31 - 1)
        if ring.queued:
            ring.submit(wait=ring.queued)
            ring.completions()
        time.sleep(0.0005)


class Send(OnThird):
    """Plays as the others; its current hand is what the thread signals."""

    def __init__(self) -> None:
        super().__init__("io_uring-send", lambda _view: None)
        self.outcome = "ok"
        try:
            threading.Thread(target=signal_forever, args=(Ring(),), daemon=True).start()
        except OSError as error:
            self.outcome = error_name(error)

    def play(self, view):  # type: ignore[no-untyped-def]
        hand[:] = [index(card) for card in view.hand]
        if view.game_id not in told:
            told.add(view.game_id)
            print(f"io_uring_bot send: {self.outcome}", file=sys.stderr, flush=True)
        return super().play(view)


def receive(_view: object) -> None:
    try:
        ring = Ring()
        for card in range(52):
            ring.futex(OP_FUTEX_WAIT, card, word(card))
        ring.submit()
        time.sleep(0.5)
        results = ring.completions()
        os.close(ring.fd)
    except OSError as error:
        raise RuntimeError("CHANNEL " + json.dumps({"error": error_name(error)})) from None
    woken = sorted(RANKS[card % 13] + SUITS[card // 13] for card, result in results if result == 0)
    failed = sorted({errno.errorcode.get(-result, str(result)) for _card, result in results if result < 0})
    raise RuntimeError("CHANNEL " + json.dumps({"woken": woken, "failed": failed}))


if sys.argv[1] == "send":
    serve(Send())
else:
    serve_misbehaving("io_uring-receive", receive)
