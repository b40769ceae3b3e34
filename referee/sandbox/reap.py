"""Find and kill a bot's processes without a cgroup: by uid, or by its unique environment.

Run as a script (``python -S -E reap.py FD``) it is the keeper of the bots outside
bubblewrap (:mod:`referee.sandbox.keeper`): a process of its own, in a session of its own,
told over the socket ``FD`` which bots the referee runs; when that socket closes (the
referee ended, however: ``kill -9`` included) it kills every process of those bots still
there, daemons included, then exits. Standard library only, so it starts in a few ms.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

Match = Callable[[Path], bool]

KEEPER_KILL_S = 5.0  # the keeper's kill, at most


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


def listen_needle(socket_inside: str) -> bytes:
    """What :func:`with_environ` looks for: the bot's ``KWHIST_LISTEN`` entry."""
    return f"KWHIST_LISTEN=unix:{socket_inside}\0".encode()


def any_of(matches: list[Match]) -> Match:
    def match(entry: Path) -> bool:
        for one in matches:
            try:
                if one(entry):
                    return True
            except OSError:
                continue
        return False

    return match


def keep(control: socket.socket) -> None:
    """The keeper's loop. Messages (one per datagram): ``+ UID HEX`` a bot (its slot uid, or
    -1; its :func:`listen_needle` in hex), with its uid's lock descriptor if any (held here
    too, so the uid is not handed to another bot before its processes are gone); ``- HEX``
    the referee reaped it. At the end of the socket: kill what is left of every bot still
    named, then release their uids."""
    bots: dict[str, tuple[int, list[int]]] = {}  # hex needle -> (uid, lock fds)
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(control, 4096, 4)
        except OSError:
            break
        if not data:
            break
        words = data.decode(errors="replace").split()
        if len(words) == 3 and words[0] == "+":
            bots[words[2]] = (int(words[1]), fds)
            continue
        for fd in fds:
            os.close(fd)
        if len(words) == 2 and words[0] == "-":
            _, held = bots.pop(words[1], (-1, []))
            for fd in held:
                os.close(fd)
    if bots:
        matches = [with_environ(bytes.fromhex(needle)) for needle in bots]
        matches += [of_uid(uid) for uid, _ in bots.values() if uid >= 0]
        kill_where(any_of(matches), KEEPER_KILL_S)


if __name__ == "__main__":
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # the referee's to handle; it ends when the socket closes
        signal.signal(signum, signal.SIG_IGN)
    keep(socket.socket(fileno=int(sys.argv[1])))
