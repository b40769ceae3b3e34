"""Find and kill a bot's processes without a cgroup: by uid, or by its unique environment."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

Match = Callable[[Path], bool]


def kill_where(matches: Match, timeout_s: float) -> bool:
    """SIGKILL every process whose /proc entry ``matches``, again and again until none is left
    (a forking process cannot outrun it for long) or ``timeout_s`` s pass; True when none is."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if matches(entry):
                    os.kill(int(entry.name), signal.SIGKILL)
                    found += 1
            except OSError:
                continue
        if not found:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def of_uid(uid: int) -> Match:
    """A process running as ``uid`` (a slot uid, used by nothing else)."""
    return lambda entry: entry.stat().st_uid == uid


def with_environ(needle: bytes) -> Match:
    """A process started with ``needle`` (the bot's unique ``KWHIST_LISTEN=...\\0``) in its
    environment: the bot and every descendant that did not clear it."""
    return lambda entry: needle in (entry / "environ").read_bytes()
