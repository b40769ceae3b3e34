"""A bot that makes calls the allowlist refuses, 50 times each at every decision:
``io_uring_setup`` (refused on purpose) and ``ptrace`` (not on the list). It writes once
``refused_calls_bot: io_uring_setup <errno>, ptrace <errno>`` to stderr, and otherwise
plays its lowest legal card."""

import ctypes
import errno
import sys

from onthird import OnThird

from referee.botkit import serve

IO_URING_SETUP, PTRACE, PTRACE_TRACEME = 425, 101, 0  # x86_64
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
told: list[str] = []


def call(number: int, *args: int) -> str:
    result = libc.syscall(number, *args)
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")


def refused(_view: object) -> None:
    outcome = {}
    for _ in range(50):
        outcome["io_uring_setup"] = call(IO_URING_SETUP, 8, 0)
        outcome["ptrace"] = call(PTRACE, PTRACE_TRACEME, 0, 0, 0)
    if not told:
        told.append("told")
        print("refused_calls_bot: " + ", ".join(f"{name} {error}" for name, error in outcome.items()), file=sys.stderr, flush=True)


class EveryDecision(OnThird):
    def _tick(self, view):  # type: ignore[no-untyped-def]
        refused(view)


serve(EveryDecision("refused-calls", refused))
