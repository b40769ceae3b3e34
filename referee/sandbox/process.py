"""One running bot process, its whole tree, and the registry of live ones (DESIGN.md §6)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading

from referee.sandbox import cgroups, reap
from referee.sandbox.cgroups import Cgroup
from referee.sandbox.detail import describe_exit
from referee.sandbox.output import OutputLog
from referee.sandbox.settings import SandboxSettings
from referee.sandbox.uids import UidClaim
from referee.sandbox.workdir import PrivateDir, short_root

KILL_WAIT_S = 5.0

_registry: dict[int, BotProcess] = {}
_registry_lock = threading.RLock()  # re-entrant: kill_all may run in a signal handler


class BotProcess:
    """One running bot process (and every process it starts).

    ``address``: what the referee dials (``unix:/abs/host/path/bot.sock``). ``pid``: the
    process we started (under bwrap, the outer ``bwrap``). ``uid``: the uid the bot runs as.
    ``log_path``: its capped log, kept after :meth:`kill`. ``mode``: the effective sandbox mode.
    Built by :func:`referee.sandbox.launch` (``uid``: the slot uid it holds for the bot, if any).
    Call :meth:`kill` when done with it, also after it exited on its own: that reaps its whole
    tree, finishes the log and removes its private directory and cgroup.
    """

    def __init__(
        self,
        *,
        name: str,
        slot: int,
        mode: str,
        popen: subprocess.Popen[bytes],
        log: OutputLog,
        private: PrivateDir,
        cgroup: Cgroup | None,
        uid: UidClaim | None,
        settings: SandboxSettings,
    ) -> None:
        self.name = name
        self.slot = slot
        self.mode = mode
        self.address = f"unix:{private.socket_host}"
        self.pid = popen.pid
        self.uid = uid.uid if uid is not None else os.geteuid()
        self.log_path = log.path
        self.settings = settings
        self._popen = popen
        self._log = log
        self._private = private
        self._cgroup = cgroup
        self._slot_uid = uid.uid if uid is not None else None
        self._uid_claim = uid  # released once the whole tree is reaped
        self._lock = threading.RLock()
        self._kill_started = False
        self._killed_running = False  # kill() found it still running
        self._done = False
        self._detail: str | None = None
        self._waited = False

    def poll(self) -> int | None:
        """The exit status of the process we started, or None while it runs."""
        return self._popen.poll()

    def stderr_head(self, max_bytes: int = 2000) -> str:
        """The first ``max_bytes`` bytes the bot wrote to stderr (decoded, bad bytes replaced)."""
        return self._log.stderr.head_text(max_bytes)

    def stderr_tail(self, max_bytes: int = 2000) -> str:
        """The last ``max_bytes`` bytes the bot wrote to stderr that were kept."""
        return self._log.stderr.tail_text(max_bytes)

    def exit_detail(self) -> str | None:
        """None while running; else how it ended, naming the limit where it can be told
        (see :func:`referee.sandbox.detail.describe_exit`), or ``killed by the referee``."""
        with self._lock:
            if self._detail is not None:
                return self._detail
            code = self._popen.poll()
            if code is None:
                return None
            if self._killed_running:
                self._detail = "killed by the referee"
                return self._detail
            # let stderr reach its end (the reason may be in its last lines); wait only once,
            # since a daemonised descendant may hold the pipe open until kill()
            ended = self._log.wait(0 if self._waited else 0.5)
            self._waited = True
            cgroup = self._cgroup
            detail = describe_exit(
                code,
                self.mode,
                self.settings,
                self.stderr_tail(4000),
                oom_kills=cgroup.oom_kills() if cgroup else 0,
                pids_hits=cgroup.pids_limit_hits() if cgroup else 0,
            )
            if ended or self._kill_started:
                self._detail = detail
            return detail

    def kill(self) -> None:
        """Kill the whole tree, wait for it, finish the log (kept), remove the private
        directory and the cgroup. Idempotent; safe from another thread or a signal handler
        (a call that interrupts another one on the same thread does the work again)."""
        with self._lock:
            if self._done:
                return
            if not self._kill_started:
                self._kill_started = True
                self._killed_running = self._popen.poll() is None
                if not self._killed_running:
                    self.exit_detail()
            self._kill_tree()
            if self._uid_claim is not None:
                self._uid_claim.release()
            self._done = True
        with _registry_lock:
            if _registry.get(self.slot) is self:
                del _registry[self.slot]

    def _kill_tree(self) -> None:
        if self._cgroup is not None:
            self._cgroup.kill(0.5)  # frozen and killed at once: a fork bomb cannot outrun it
        with contextlib.suppress(OSError):
            os.killpg(self._popen.pid, signal.SIGKILL)  # our session: the process and its group
        with contextlib.suppress(OSError):
            self._popen.kill()  # under bwrap: --die-with-parent then empties the PID namespace
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(KILL_WAIT_S)
        if self._cgroup is not None:
            self._cgroup.kill(KILL_WAIT_S)
        elif self.mode != "bwrap" and sys.platform.startswith("linux"):
            # no cgroup: the daemonised descendants a group kill misses
            if self._slot_uid is not None:
                reap.kill_where(reap.of_uid(self._slot_uid), KILL_WAIT_S)
            listen = f"KWHIST_LISTEN=unix:{self._private.socket_inside}\0".encode()
            reap.kill_where(reap.with_environ(listen), KILL_WAIT_S)
        self._log.finish(wait_s=2.0)
        if self._cgroup is not None:
            self._cgroup.remove()
        self._private.remove()

    def __repr__(self) -> str:
        return f"BotProcess(name={self.name!r}, slot={self.slot}, mode={self.mode}, pid={self.pid})"


def register(process: BotProcess) -> None:
    """Add a just-launched process to the registry (its slot was checked free before)."""
    with _registry_lock:
        _registry[process.slot] = process


def slot_holder(slot: int) -> BotProcess | None:
    """The process registered in ``slot``, if any."""
    with _registry_lock:
        return _registry.get(slot)


def live_processes() -> list[BotProcess]:
    """Every process launched and not yet killed."""
    with _registry_lock:
        return list(_registry.values())


def kill_all() -> None:
    """Kill every BotProcess still alive (for atexit, signal handlers and the end of a league),
    then remove this referee's cgroups and short socket directory."""
    for process in live_processes():
        process.kill()
    if live_processes():
        return
    cgroups.remove_groups()
    with contextlib.suppress(OSError):
        short_root().rmdir()
