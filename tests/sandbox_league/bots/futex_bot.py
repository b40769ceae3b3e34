"""Issue 23: two bots try to pass a hand through futex waiters on a file both map.

Both map the first page of the runtime's ``os.py`` (read-only, private: a shared futex on a
file page is keyed by its inode and offset, the same in every sandbox). Card ``c`` (0-51) is
the word at offset ``4 c``. ``send``: a thread wakes the waiters on the words of the cards
of its current hand, over and over. ``receive``: on its 3rd decision waits on each of the 52
words in turn (20 ms each) and reports the cards whose wait was woken, and the errno of
every failed call, as a ``malformed`` fault: ``CHANNEL <json>``."""

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

FUTEX, WAIT, WAKE = 202, 0, 1  # x86_64; without FUTEX_PRIVATE_FLAG: shared
RANKS, SUITS = "23456789TJQKA", "SHDC"
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
PAGE = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE, os.open(os.__file__, os.O_RDONLY), 0)
hand: list[int] = []
told: set[str] = set()


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def index(card: object) -> int:
    text = str(card)
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def futex(card: int, op: int, value: int, timeout: Timespec | None = None) -> tuple[int, str]:
    result = libc.syscall(FUTEX, ctypes.c_void_p(PAGE + 4 * card), op, value, ctypes.byref(timeout) if timeout else None, None, 0)
    return result, ("" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"))


def word(card: int) -> int:
    return ctypes.c_uint32.from_address(PAGE + 4 * card).value


def signal_forever() -> None:
    while True:
        for card in list(hand):
            futex(card, WAKE, 2**31 - 1)
        time.sleep(0.0005)


class Send(OnThird):
    """Plays as the others; its current hand is what the thread signals."""

    def play(self, view):  # type: ignore[no-untyped-def]
        hand[:] = [index(card) for card in view.hand]
        if view.game_id not in told:
            told.add(view.game_id)
            print(f"futex_bot send: wake {futex(hand[0], WAKE, 1)[1] or 'ok'}", file=sys.stderr, flush=True)
        return super().play(view)


def receive(_view: object) -> None:
    woken, errors = [], {}
    for card in range(52):
        result, error = futex(card, WAIT, word(card), Timespec(0, 20_000_000))
        if result == 0:
            woken.append(RANKS[card % 13] + SUITS[card // 13])
        elif error != "ETIMEDOUT":
            errors[error] = errors.get(error, 0) + 1
    raise RuntimeError("CHANNEL " + json.dumps({"woken": woken, "errors": errors}, sort_keys=True))


if sys.argv[1] == "send":
    threading.Thread(target=signal_forever, daemon=True).start()
    serve(Send("futex-send", lambda _view: None))
else:
    serve_misbehaving("futex-receive", receive)
