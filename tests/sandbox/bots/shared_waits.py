"""Shared futex waits, for the fair-share test and benchmark B10 (docs/sandbox.md "Shared
futexes"). Every wait is a ``FUTEX_WAIT`` without ``FUTEX_PRIVATE_FLAG`` on a word of its own
memory holding what it expects, so the kernel would say ``EAGAIN`` at once: under the
referee's filter each is answered by the supervisor instead, a tick or two later.

``flood THREADS``: that many threads wait in a loop, forever (prints ``FLOODING`` once they run).
``measure COUNT``: ``COUNT`` waits one after another; prints ``WAITS {json}`` with the ms
of each (and the errno names seen), then sleeps."""

import ctypes
import errno
import json
import sys
import threading
import time

FUTEX, FUTEX_WAIT = 202, 0  # x86_64; without FUTEX_PRIVATE_FLAG: shared
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def wait_once(word: ctypes.c_uint32) -> str:
    result = libc.syscall(FUTEX, ctypes.byref(word), FUTEX_WAIT, word.value + 1, None, None, 0)  # a value it does not hold
    return "ok" if result == 0 else errno.errorcode.get(ctypes.get_errno(), "?")


def flood_forever() -> None:
    word = ctypes.c_uint32(0)
    while True:
        wait_once(word)


if sys.argv[1] == "flood":
    for _ in range(int(sys.argv[2])):
        threading.Thread(target=flood_forever, daemon=True).start()
    print("FLOODING", flush=True)
    while True:
        time.sleep(3600)
word = ctypes.c_uint32(0)
times, errors = [], {}
for _ in range(int(sys.argv[2])):
    began = time.monotonic()
    name = wait_once(word)
    times.append((time.monotonic() - began) * 1000)
    errors[name] = errors.get(name, 0) + 1
print("WAITS " + json.dumps({"ms": times, "errors": errors}), flush=True)
while True:
    time.sleep(3600)
