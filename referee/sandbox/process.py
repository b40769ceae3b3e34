"""One running bot process, its whole tree, and the registry of live ones (docs/design.md §6)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from referee.errors import BotError
from referee.sandbox import cgroups, reap
from referee.sandbox.botsocket import address_of, open_socket, sandbox_home_fd
from referee.sandbox.cgroups import Cgroup
from referee.sandbox.detail import describe_exit
from referee.sandbox.output import OutputLog
from referee.sandbox.settings import SandboxSettings
from referee.sandbox.uids import UidClaim
from referee.sandbox.workdir import SOCKET_NAME, PrivateDir, short_root

KILL_WAIT_S = 5.0
TERM_GRACE_S = 1.0  # at the end of a league and on Ctrl-C: SIGTERM, this long, then SIGKILL
SOCKET_POLL_S = 0.002  # how often wait_address looks for the bot's socket, s

_registry: dict[int, BotProcess] = {}
_registry_lock = threading.RLock()  # re-entrant: kill_all may run in a signal handler


class BotProcess:
    """One running bot process (and every process it starts).

    ``address`` / :meth:`find_address`: what the referee dials, once the bot's socket is
    verified (:mod:`referee.sandbox.botsocket`). ``pid``: the process we started (under
    bwrap, the outer ``bwrap``). ``uid``: the uid the bot runs as (on the host).
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
        self._socket_fd: int | None = None
        self._sandbox_home: int | None = None
        self.asked_to_stop_at: float | None = None  # monotonic s of its first SIGTERM (:meth:`terminate`)
        self.refused_lines: set[str] = set()  # the calls refused it, as named in its log (:func:`note_refused`)


    @property
    def cgroup_path(self) -> Path | None:
        """The bot's cgroup v2 leaf, None without one (its CPU clocks: :mod:`referee.sandbox.cputime`)."""
        return self._cgroup.path if self._cgroup is not None else None

    def find_address(self) -> str | None:
        """The address to dial (``unix:/proc/self/fd/N``, valid while this process is not
        killed) once the bot has bound its socket, None until then. Raises
        :class:`~referee.sandbox.botsocket.SocketRefused` (a BotError) when its socket path
        holds a link, a file, or a socket of another uid; BotError once it was killed."""
        with self._lock:
            if self._socket_fd is not None:
                return address_of(self._socket_fd)
            if self._kill_started:
                raise BotError(f"bot {self.name}: its process was stopped")
            home = self._private.home_fd
            if home is None:
                if self._sandbox_home is None:
                    self._sandbox_home = sandbox_home_fd(self.pid, self._private.inside)
                home = self._sandbox_home
            if home is None:
                return None
            fd = open_socket(home, SOCKET_NAME, self.uid, who=f"bot {self.name}")
            if fd is None:
                return None
            self._socket_fd = fd
            return address_of(fd)

    def wait_address(self, timeout_s: float = 60.0) -> str:
        """:meth:`find_address`, blocking up to ``timeout_s`` s. Raises BotError when the
        process ends or the time passes first, or the socket is refused."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.find_address()
            if found is not None:
                return found
            if self.poll() is not None:
                raise BotError(f"bot {self.name}: its process ended before serving ({self.exit_detail()})")
            if time.monotonic() >= deadline:
                raise BotError(f"bot {self.name}: no socket within {timeout_s:g} s")
            time.sleep(SOCKET_POLL_S)

    @property
    def home(self) -> Path | None:
        """The bot's home on the host (removed by :meth:`kill`), None under bwrap (a tmpfs
        inside the sandbox)."""
        return self._private.host

    @property
    def address(self) -> str:
        """:meth:`wait_address` (blocking; in trio, poll :meth:`find_address` instead)."""
        return self.wait_address()

    def poll(self) -> int | None:
        """The exit status of the process we started, or None while it runs."""
        return self._popen.poll()

    def note(self, line: str) -> None:
        """Write ``[referee] line`` into the bot's log, in order with its own output (the
        log's one writer: a second open of the file would write over it). Never raises."""
        try:
            self._log.note(line)
        except OSError:
            pass

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

    def terminate(self) -> None:
        """Send SIGTERM to the bot (every process of it, not bubblewrap's own) so that it can
        stop cleanly; :meth:`kill` it after a grace (see :func:`stop`). Never raises."""
        with self._lock:
            if self._kill_started or self._popen.poll() is not None:
                return
            if self.asked_to_stop_at is None:
                self.asked_to_stop_at = time.monotonic()
            targets = _descendants(self.pid)
            if self.mode == "bwrap":
                targets -= {self.pid, *_children(self.pid)}  # bubblewrap and the sandbox's init
            for pid in targets:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
            if self.mode != "bwrap":
                with contextlib.suppress(OSError):
                    os.killpg(self.pid, signal.SIGTERM)

    def _start_kill(self) -> None:
        """Note, once and under the lock, whether the process still ran when it was first
        killed (an exit before that is its own, and is recorded now)."""
        if not self._kill_started:
            self._kill_started = True
            self._killed_running = self._popen.poll() is None
            if not self._killed_running:
                self.exit_detail()

    def send_kill(self) -> None:
        """SIGKILL the whole tree now, without waiting for it (:func:`stop` signals every
        process first, then :meth:`kill` waits for each). Never raises."""
        with self._lock:
            if self._done:
                return
            self._start_kill()
            with contextlib.suppress(OSError):
                if self._cgroup is not None:
                    self._cgroup.send_kill()
            with contextlib.suppress(OSError):
                os.killpg(self._popen.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self._popen.kill()

    def kill(self) -> None:
        """Kill the whole tree (SIGKILL), wait for it, finish the log (kept), remove the
        private directory and the cgroup. Idempotent; never raises for a clean-up problem
        (it goes to the bot's log); safe from another thread or a signal handler (a call that
        interrupts another one on the same thread does the work again)."""
        with self._lock:
            if self._done:
                return
            self._start_kill()
            try:
                self._kill_tree()
            except Exception as error:  # clean-up never stops the league: say it in the log
                with contextlib.suppress(Exception):
                    self._log.note(f"clean-up failed: {error!r}")
                    self._log.finish(wait_s=0)
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
        problems: list[str] = []
        try:
            if self._cgroup is not None:
                self._cgroup.kill(KILL_WAIT_S)
            elif self.mode != "bwrap" and sys.platform.startswith("linux"):
                # no cgroup: the daemonised descendants a group kill misses
                if self._slot_uid is not None:
                    reap.kill_where(reap.of_uid(self._slot_uid), KILL_WAIT_S)
                listen = f"KWHIST_LISTEN=unix:{self._private.socket_inside}\0".encode()
                reap.kill_where(reap.with_environ(listen), KILL_WAIT_S)
        except OSError as error:
            problems.append(f"clean-up: could not reap every process: {error}")
        for fd in (self._socket_fd, self._sandbox_home):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._socket_fd = self._sandbox_home = None
        try:
            if self._cgroup is not None:
                self._cgroup.remove()
        except OSError as error:
            problems.append(f"clean-up: could not remove its cgroup: {error}")
        problem = self._private.remove()
        if problem:
            problems.append(problem)
        for line in problems:
            with contextlib.suppress(OSError, ValueError):
                self._log.note(line)
        self._log.finish(wait_s=2.0)

    def __repr__(self) -> str:
        return f"BotProcess(name={self.name!r}, slot={self.slot}, mode={self.mode}, pid={self.pid})"


_refused_lock = threading.Lock()
_refused: dict[str, dict[str, None]] = {}  # bot name -> the calls it was refused (first time first)


def note_refused(pid: int, name: str, line: str) -> None:
    """A call ``name`` of the bot process whose bubblewrap is ``pid`` was refused by the
    allowlist (docs/sandbox.md): write ``line`` into its log, once per process, and
    remember the call for its bot (:func:`refused_calls`). Never raises."""
    with _registry_lock:
        process = next((found for found in _registry.values() if found.pid == pid), None)
    if process is None:
        return
    with _refused_lock:
        if line in process.refused_lines:
            return
        process.refused_lines.add(line)
        _refused.setdefault(process.name, {})[name] = None
    process.note(line)


def refused_calls(bot: str) -> list[str]:
    """The system calls the bot ``bot`` (its config name) was refused in this run, by any of
    its processes, first refused first (check-bot's ``refused-calls`` row)."""
    with _refused_lock:
        return list(_refused.get(bot, {}))


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


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found |= {int(word) for word in (task / "children").read_text().split()}
    return found


def _descendants(pid: int) -> set[int]:
    """``pid`` and every process below it (by parent links; empty without /proc)."""
    found, todo = {pid}, [pid]
    while todo:
        for child in _children(todo.pop()) - found:
            found.add(child)
            todo.append(child)
    return found


def stop(processes: Iterable[BotProcess], grace_s: float = TERM_GRACE_S) -> None:
    """End ``processes``: SIGTERM to each bot not yet asked (:func:`ask_to_stop`), and up to
    ``grace_s`` s from when it was asked for all to exit, then SIGKILL to every tree at
    once, then :meth:`BotProcess.kill` for each (waits, clean-up): the waits overlap, so
    stopping thirty bots costs about what stopping one does."""
    processes = list(processes)
    if grace_s > 0:
        for process in processes:
            if process.asked_to_stop_at is None:
                process.terminate()
        asked = [process.asked_to_stop_at for process in processes if process.asked_to_stop_at is not None]
        deadline = max(asked, default=time.monotonic()) + grace_s
        while time.monotonic() < deadline and any(process.poll() is None for process in processes):
            time.sleep(0.01)
    for process in processes:
        process.send_kill()
    if len(processes) == 1:
        processes[0].kill()
        return
    # each kill waits for its tree, its log and its clean-up: side by side, not one after another
    reapers = [threading.Thread(target=process.kill, name=f"reap {process.name}", daemon=True) for process in processes]
    for reaper in reapers:
        reaper.start()
    for reaper in reapers:
        reaper.join()


def ask_to_stop(processes: Iterable[BotProcess], grace_s: float = TERM_GRACE_S) -> None:
    """SIGTERM to each of ``processes`` now, and SIGKILL to what is left ``grace_s`` s later
    (on a timer thread): the referee goes on at once (Ctrl-C: the standings are printed
    during the bots' grace). :func:`stop` and :func:`kill_all` meanwhile wait only for
    what is left of it."""
    processes = list(processes)
    for process in processes:
        process.terminate()
    timer = threading.Timer(grace_s, stop, (processes, 0.0))
    timer.daemon = True
    timer.start()


def kill_all(grace_s: float = TERM_GRACE_S) -> None:
    """Stop every BotProcess still alive (for atexit, signal handlers and the end of a
    league: SIGTERM, ``grace_s`` s, SIGKILL; :func:`stop`), then remove this referee's
    cgroups and short socket directory."""
    stop(live_processes(), grace_s)
    if live_processes():
        return
    cgroups.remove_groups()
    with contextlib.suppress(OSError):
        short_root().rmdir()
