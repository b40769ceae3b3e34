"""The referee's answers to the shared futex calls of bubblewrap bots
(referee/sandbox/futexwait.py, docs/sandbox.md "Threat model"): a wait "look again"
(EAGAIN), anything else refused (EINVAL), whatever the flags and high bits; the filter that
sends them is inherited by every bubblewrap bot (the league tests: tests/sandbox_league/
test_channels.py, tests/crosslang/test_java_bot.py)."""

from __future__ import annotations

import errno

import pytest

from referee.sandbox import futexwait, seccomp

FUTEX_WAKE, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_WAKE_OP, FUTEX_LOCK_PI, FUTEX_WAIT_REQUEUE_PI = 1, 3, 4, 5, 6, 11


@pytest.mark.parametrize(
    ("operation", "answer"),
    [
        (futexwait.FUTEX_WAIT, errno.EAGAIN),
        (futexwait.FUTEX_WAIT_BITSET, errno.EAGAIN),
        (futexwait.FUTEX_WAIT_BITSET | futexwait.FUTEX_CLOCK_REALTIME, errno.EAGAIN),  # glibc's absolute waits
        (futexwait.FUTEX_WAIT | 1 << 40, errno.EAGAIN),  # the kernel reads the low 32 bits only
        (FUTEX_WAKE, errno.EINVAL),  # glibc ignores EINVAL on a wake
        (FUTEX_REQUEUE, errno.EINVAL),
        (FUTEX_CMP_REQUEUE, errno.EINVAL),
        (FUTEX_WAKE_OP, errno.EINVAL),
        (FUTEX_LOCK_PI, errno.EINVAL),
        (FUTEX_WAIT_REQUEUE_PI, errno.EINVAL),
        (64, errno.EINVAL),  # no such operation
    ],
)
def test_a_notified_futex_call_gets_look_again_if_it_waits_else_einval(operation: int, answer: int) -> None:
    assert futexwait.answer_errno(operation) == answer


def test_bubblewraps_filter_leaves_futex_to_the_referee_only_where_it_answers() -> None:
    if seccomp.program() is None or futexwait.notify_program() is None:
        pytest.skip("no libseccomp 2.5+ with pyseccomp here")
    refused, notified = seccomp.program(False), seccomp.program(True)
    assert refused is not None and notified is not None
    assert len(notified) < len(refused), "the notified variant has no futex rule"


HOLDS_THE_LOCK = """
import ctypes, json, sys
import pyseccomp
from referee.sandbox import futexwait, spawner
if not spawner.notified_available():
    print(json.dumps({"unavailable": futexwait.problem()}))
    sys.exit(0)
word = ctypes.c_int(1)
libc = ctypes.PyDLL(None, use_errno=True)  # a call through it keeps the interpreter lock
libc.syscall.restype = ctypes.c_long
number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "futex")
def wait():  # a shared FUTEX_WAIT for 0 on a word that holds 1: the kernel would say EAGAIN at once
    return libc.syscall(number, ctypes.byref(word), 0, 0, None), ctypes.get_errno()
result, error = spawner.run_notified(wait)
print(json.dumps({"result": result, "errno": error, "answered": futexwait.supervisor().answered}))
"""


def test_the_referee_answers_its_own_filtered_threads_wait_while_it_holds_the_interpreter_lock() -> None:
    """The thread that starts bubblewrap bots carries the notifying filter itself; a shared
    futex wait it makes inside a C call that keeps Python's lock (a C library joining a
    thread) is still answered: the supervisor is a process of its own (it hung the referee,
    and CI, when it was a thread of the referee)."""
    import json
    import subprocess
    import sys

    if futexwait.notify_program() is None:
        pytest.skip("no libseccomp 2.5+ with pyseccomp here")
    done = subprocess.run([sys.executable, "-c", HOLDS_THE_LOCK], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    if "unavailable" in outcome:
        pytest.skip(f"no seccomp user notification here: {outcome['unavailable']}")
    assert (outcome["result"], outcome["errno"]) == (-1, errno.EAGAIN)
    assert outcome["answered"] >= 1
