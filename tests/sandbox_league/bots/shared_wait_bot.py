"""A bot that makes one shared futex wait at every decision, and dies as glibc would if the
answer is not one a C library expects (issue 35: when the futex supervisor ends, a kernel
with no listener answers ``ENOSYS``, and glibc's ``pthread_join`` then aborts the process).

Under the referee's filter the wait is answered ``EAGAIN`` ("look again"); under
bubblewrap's refusing filter it fails with ``EINVAL`` at once. Anything else: it prints
``shared_wait_bot: <errno>`` and aborts. Otherwise it plays its lowest legal card, after a
pause of its first argument in s (default 0), so that a game lasts a while."""

import ctypes
import errno
import os
import sys
import time

from onthird import OnThird

from referee.botkit import serve

FUTEX, FUTEX_WAIT = 202, 0  # x86_64; without FUTEX_PRIVATE_FLAG: shared
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
word = ctypes.c_uint32(0)
PAUSE_S = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0


def shared_wait(_view: object) -> None:
    result = libc.syscall(FUTEX, ctypes.byref(word), FUTEX_WAIT, 1, None, None, 0)  # the word holds 0: never sleeps
    error = ctypes.get_errno()
    if result == 0 or error not in (errno.EAGAIN, errno.EINVAL):
        print(f"shared_wait_bot: {errno.errorcode.get(error, error)}", file=sys.stderr, flush=True)
        os.abort()


class EveryDecision(OnThird):
    def _tick(self, view):  # type: ignore[no-untyped-def]
        shared_wait(view)
        time.sleep(PAUSE_S)


serve(EveryDecision("shared-wait", shared_wait))
