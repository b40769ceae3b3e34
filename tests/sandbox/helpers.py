"""Helpers for the sandbox tests: find every process of a bot (by a marker in its environment
or command line), wait for a bot's log or exit."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from pathlib import Path

from referee.sandbox import BotProcess

BOTS = Path(__file__).parent / "bots"
MARKER_KEY = "KWHIST_TEST_MARKER"
REPORT = (
    "cat /proc/self/limits; echo UID $(id -u); tr '\\0' '\\n' </proc/$$/environ; "
    "echo REPORTED_$((1 + 1)); exec sleep 30"
)
"""A bot command (``/bin/sh -c REPORT``) that writes its rlimits, uid and environment to its
log, then :data:`DONE`, and sleeps."""
DONE = "REPORTED_2"  # not in the command line that the log shows
_slots = itertools.count(100)


def next_slot() -> int:
    return next(_slots)


def bot_pids(marker: str) -> set[int]:
    """Every live (not zombie) process whose environment or command line holds ``marker``."""
    found = set()
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            status = (entry / "status").read_text()
            if "State:\tZ" in status:
                continue
            blob = (entry / "environ").read_bytes() + (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in blob:
            found.add(int(entry.name))
    return found


def uids_of(pids: set[int]) -> set[int]:
    """Every uid (real, effective, saved, file system) of the live processes ``pids``."""
    found: set[int] = set()
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue  # gone meanwhile
        line = next(line for line in status.splitlines() if line.startswith("Uid:"))
        found.update(int(uid) for uid in line.split()[1:])
    return found


def wait_for(predicate: Callable[[], bool], timeout_s: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def log_text(process: BotProcess) -> str:
    return process.log_path.read_bytes().decode(errors="replace")


def wait_log(process: BotProcess, text: str, timeout_s: float = 20.0) -> str:
    """Wait until ``text`` is in the process's log (or it exits); return the log."""
    wait_for(lambda: text in log_text(process) or process.poll() is not None, timeout_s)
    return log_text(process)


def wait_exit(process: BotProcess, timeout_s: float = 30.0) -> int:
    assert wait_for(lambda: process.poll() is not None, timeout_s), f"{process} still runs"
    code = process.poll()
    assert code is not None
    return code


Launcher = Callable[..., BotProcess]


def reported_limit(log: str, name: str) -> tuple[str, str]:
    """(soft, hard) of the rlimit ``name`` ("Max open files") in a :data:`REPORT` bot's log."""
    line = next(line for line in log.splitlines() if line.startswith(name))
    soft, hard = line[len(name) :].split()[:2]
    return soft, hard
