"""The allowlist (referee/sandbox/allowlist.py, docs/sandbox.md "The allowlist") as
bubblewrap's filter loads it, tried call by call in a process of its own: what is on the
list runs, what is refused on purpose fails with EPERM, what is not on the list with ENOSYS,
the argument checks on their low 32 bits; and the filter of a bot that also carries the
referee's notifying one refuses only the sandbox's set-up calls. (In a league:
tests/sandbox_league/test_allowlist.py, test_channels.py.)"""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import pytest

from referee.sandbox import allowlist, seccomp

TRY_CALLS = r"""
import ctypes, errno, json, os, sys
import pyseccomp
program = bytes.fromhex(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
code = ctypes.create_string_buffer(program, len(program))
fprog = Fprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.syscall(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "seccomp"), 1, 0, ctypes.byref(fprog)) == 0
word = ctypes.c_uint32(0)
lock = ctypes.create_string_buffer(32)  # a struct flock, all zero: F_RDLCK of the whole file
fd = os.open(sys.executable, os.O_RDONLY)
def call(name, *args):
    result = libc.syscall(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name), *args)
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
print(json.dumps({
    "getpid": call("getpid"),
    "io_uring_setup": call("io_uring_setup", 8, 0),
    "ptrace": call("ptrace", 0, 0, 0, 0),
    "flock": call("flock", fd, 1),
    "fcntl F_GETFD": call("fcntl", fd, 1),
    "fcntl F_SETLK": call("fcntl", fd, 6, ctypes.byref(lock)),
    "fcntl F_SETLK, high bits": call("fcntl", fd, 6 | 1 << 40, ctypes.byref(lock)),
    "futex private": call("futex", ctypes.byref(word), 128, 1, None),
    "futex shared": call("futex", ctypes.byref(word), 0, 1, None),
    "clone3": call("clone3", 0, 0),
    "unshare user": call("unshare", 0x10000000),
    "mount": call("mount", 0, 0, 0, 0, 0),
    "socket unix": call("socket", 1, 1, 0),
    "socket packet": call("socket", 17, 3, 0),
    "keyctl": call("keyctl", 0, 0),
}))
"""


def tried(futex_notified: bool) -> dict[str, str]:
    program = seccomp.program(futex_notified)
    if program is None:
        pytest.skip("no libseccomp with pyseccomp here")
    done = subprocess.run([sys.executable, "-c", TRY_CALLS, program.hex()], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    outcome: dict[str, str] = json.loads(done.stdout)
    return outcome


def test_the_refusing_filter_is_the_whole_allowlist() -> None:
    assert tried(False) == {
        "getpid": "ok",
        "io_uring_setup": "EPERM",  # refused on purpose
        "ptrace": "ENOSYS",  # not on the list
        "flock": "EPERM",
        "fcntl F_GETFD": "ok",
        "fcntl F_SETLK": "EPERM",
        "fcntl F_SETLK, high bits": "EPERM",  # the kernel reads the command's low 32 bits
        "futex private": "EAGAIN",  # the word holds 0, not 1: the kernel's own answer
        "futex shared": "EINVAL",
        "clone3": "ENOSYS",  # C libraries fall back to clone
        "unshare user": "EPERM",
        "mount": "EPERM",
        "socket unix": "ok",
        "socket packet": "ENOSYS",
        "keyctl": "EPERM",
    }


def test_beside_the_referees_filter_bubblewraps_refuses_only_the_set_up_calls() -> None:
    outcome = tried(True)
    assert {name: outcome[name] for name in ("mount", "unshare user", "clone3")} == {"mount": "EPERM", "unshare user": "EPERM", "clone3": "ENOSYS"}
    assert outcome["ptrace"] != "ENOSYS" and outcome["keyctl"] != "EPERM", "the rest is the referee's filter's to refuse"


@pytest.mark.parametrize(
    ("name", "command", "expected"),
    [("io_uring_setup", None, errno.EPERM), ("ptrace", None, errno.ENOSYS), ("fcntl", 6 | 1 << 40, errno.EPERM), ("fcntl", 1030, errno.ENOSYS)],
)
def test_the_referee_refuses_what_bubblewraps_filter_would(name: str, command: int | None, expected: int) -> None:
    assert allowlist.refusal(name, command) == expected


def test_every_group_says_why_and_no_call_is_both_allowed_and_refused() -> None:
    assert all(group.why and group.names for group in (*allowlist.ALLOWED, *allowlist.REFUSED))
    assert not allowlist.allowed_names() & allowlist.refused_names()
    assert not set(allowlist.SILENT) & (allowlist.allowed_names() | allowlist.refused_names())
