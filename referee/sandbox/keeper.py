"""The keeper of the bots outside bubblewrap: no process of a bot outlives the referee
(docs/sandbox.md "Clean-up").

Under bubblewrap the PID namespace and ``--die-with-parent`` take every process of a bot
with the referee. Outside it (the ``rlimits`` and ``none`` modes) the bot's own process gets
``PR_SET_PDEATHSIG`` (:mod:`referee.sandbox.wrapper`), but a daemonised descendant would
outlive a referee killed with ``kill -9``. So the first such bot starts one keeper process
(:mod:`referee.sandbox.reap` run as a script, in a session of its own), and the referee
tells it each bot it starts and reaps. When the referee ends, however it ends, the keeper's
socket closes, and the keeper kills every process of the bots still named, as the referee
would have (by slot uid, and by the bot's unique ``KWHIST_LISTEN`` environment), within
:data:`referee.sandbox.reap.KEEPER_KILL_S` seconds.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

from referee.sandbox import reap


class Keeper:
    """The keeper process and the referee's end of its socket. Never raises into the
    referee after it started."""

    def __init__(self) -> None:
        """Start the process. Raises OSError where it cannot start."""
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-S", "-E", str(Path(reap.__file__)), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, close_fds=True,
                start_new_session=True,  # a signal to the referee's process group is not the keeper's
            )  # fmt: skip
        except BaseException:
            self._control.close()
            raise
        finally:
            theirs.close()
        self._lock = threading.Lock()

    def _send(self, line: str, fds: tuple[int, ...] = ()) -> None:
        with self._lock, contextlib.suppress(OSError):
            socket.send_fds(self._control, [line.encode()], list(fds)) if fds else self._control.send(line.encode())

    def watch(self, socket_inside: str, uid: int | None, lock_fd: int | None) -> None:
        """A bot started: its socket path as it sees it (its ``KWHIST_LISTEN``), its slot
        uid and that uid's lock descriptor (None for a bot that runs as the referee's uid)."""
        fds = (lock_fd,) if lock_fd is not None else ()
        self._send(f"+ {-1 if uid is None else uid} {reap.listen_needle(socket_inside).hex()}", fds)

    def forget(self, socket_inside: str) -> None:
        """The bot's processes were reaped by the referee."""
        self._send(f"- {reap.listen_needle(socket_inside).hex()}")


_keeper: Keeper | None = None
_failed = False
_lock = threading.Lock()


def keeper() -> Keeper | None:
    """The referee's keeper, started on first call; None where it could not start (then a
    daemonised descendant may outlive a referee that is killed, as without it)."""
    global _keeper, _failed
    with _lock:
        if _keeper is None and not _failed:
            try:
                _keeper = Keeper()
            except OSError:
                _failed = True
        return _keeper


def running() -> Keeper | None:
    """The keeper if it was started (never starts one: safe in a signal handler)."""
    return _keeper


def _forget_after_fork() -> None:
    """A forked child of the referee is not the keeper's referee."""
    global _keeper, _failed, _lock
    _keeper, _failed, _lock = None, False, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
