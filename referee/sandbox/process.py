"""Start, watch and kill one bot process under the sandbox (DESIGN.md §6, sandbox.md).

Every process is started from one long-lived spawner thread: ``PR_SET_PDEATHSIG`` (and
bwrap's ``--die-with-parent``) fire when the *thread* that forked the child ends, so a bot
started from a short-lived worker thread would otherwise be killed when that thread retires.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from referee.errors import BotError, SandboxError
from referee.sandbox import bwrap, cgroups, limits
from referee.sandbox.cgroups import Cgroup
from referee.sandbox.command import ResolvedCommand, resolve_command
from referee.sandbox.modes import resolve_mode
from referee.sandbox.output import OutputLog
from referee.sandbox.settings import KiB, SandboxSettings
from referee.sandbox.workdir import PrivateDir, make_private_dir, reachable_by_others, safe_stem, short_root

T = TypeVar("T")
KILL_WAIT_S = 5.0
PATH_INSIDE = "/usr/local/bin:/usr/bin:/bin"

# stderr phrases that name a limit when the exit status cannot (an exception, not a signal)
_MEMORY_WORDS = ("MemoryError", "std::bad_alloc", "out of memory", "Cannot allocate memory")
_FSIZE_WORDS = ("File too large",)
_NOFILE_WORDS = ("Too many open files",)
_PIDS_WORDS = ("can't start new thread", "Resource temporarily unavailable")


class _Spawner:
    """One daemon thread, alive for the whole process, that runs every ``Popen``."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], concurrent.futures.Future[object]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[], T]) -> T:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="bot-spawner", daemon=True)
                self._thread.start()
        future: concurrent.futures.Future[object] = concurrent.futures.Future()
        self._jobs.put((job, future))
        return future.result()  # type: ignore[return-value]

    def _loop(self) -> None:
        while True:
            job, future = self._jobs.get()
            try:
                future.set_result(job())
            except BaseException as error:  # handed to the caller
                future.set_exception(error)


_spawner = _Spawner()
_registry: dict[int, BotProcess] = {}
_registry_lock = threading.Lock()
_atexit_registered = False


class BotProcess:
    """One running bot process (and every process it starts).

    ``address`` is what the referee dials (``unix:/abs/host/path/bot.sock``); ``pid`` is the
    process we started (under bwrap, the outer ``bwrap``); ``log_path`` its capped log.
    Call :meth:`kill` when done with it, also after it exited on its own: that reaps its
    whole tree, finishes the log and removes its private directory.
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
        uid: int | None,
        settings: SandboxSettings,
    ) -> None:
        self.name = name
        self.slot = slot
        self.mode = mode
        self.address = f"unix:{private.socket_host}"
        self.pid = popen.pid
        self.log_path = log.path
        self.settings = settings
        self._popen = popen
        self._log = log
        self._private = private
        self._cgroup = cgroup
        self._uid = uid
        self._lock = threading.RLock()
        self._killed = False
        self._killed_running = False  # kill() found it still running
        self._detail: str | None = None

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
        """None while running; else how it ended, naming the limit where it can be told:
        ``exited with code 1``, ``killed by signal SIGKILL: memory limit 512 MiB reached``,
        ``killed by signal SIGXCPU: CPU time limit 3600 s reached``,
        ``exited with code 1: file size limit 64 MiB reached``, ``killed by the referee``."""
        with self._lock:
            if self._detail is not None:
                return self._detail
            code = self._popen.poll()
            if code is None:
                return None
            if self._killed_running:
                self._detail = "killed by the referee"
                return self._detail
            self._log.wait(0.5)  # let stderr reach its end: the reason may be in its last lines
            detail = self._describe(code)
            if self._killed or self._log.wait(0):
                self._detail = detail
            return detail

    def _describe(self, code: int) -> str:
        signum: int | None = None
        if code < 0:
            signum = -code
        elif self.mode == "bwrap" and code > 128 and code - 128 < signal.NSIG:
            signum = code - 128  # bwrap reports a child killed by signal N as 128 + N
        if signum is not None:
            try:
                signame = signal.Signals(signum).name
            except ValueError:
                signame = str(signum)
            head = f"killed by signal {signame}"
        else:
            head = f"exited with code {code}"
        reasons = self._limit_reasons(signum)
        return f"{head}: {'; '.join(reasons)}" if reasons else head

    def _limit_reasons(self, signum: int | None) -> list[str]:
        settings, tail = self.settings, self.stderr_tail(4000)
        reasons: list[str] = []
        if signum == signal.SIGXCPU:
            reasons.append(f"CPU time limit {settings.cpu_seconds} s reached")
        if signum == signal.SIGXFSZ or any(word in tail for word in _FSIZE_WORDS):
            reasons.append(f"file size limit {settings.file_size_mb} MiB reached")
        oom = self._cgroup is not None and self._cgroup.oom_kills() > 0
        if oom or any(word in tail for word in _MEMORY_WORDS):
            reasons.append(f"memory limit {settings.memory_mb} MiB reached")
        if any(word in tail for word in _NOFILE_WORDS):
            reasons.append(f"open files limit {settings.open_files} reached")
        pids_hit = self._cgroup is not None and self._cgroup.pids_limit_hits() > 0
        if pids_hit or any(word in tail for word in _PIDS_WORDS):
            reasons.append(f"process limit {settings.pids} reached")
        return reasons

    def kill(self) -> None:
        """Kill the whole tree, wait for it, finish the log (kept), remove the private
        directory and the cgroup. Idempotent; safe from another thread or a signal handler."""
        with self._lock:
            if self._killed:
                return
            self._killed = True
            self._killed_running = self._popen.poll() is None
            if not self._killed_running:
                self.exit_detail()
            self._kill_tree()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._popen.wait(KILL_WAIT_S)
            if self._cgroup is not None:
                self._cgroup.kill(KILL_WAIT_S)
            elif self.mode != "bwrap" and sys.platform.startswith("linux"):
                # no cgroup: find the daemonised descendants a group kill misses
                if self._uid is not None:
                    _kill_where(_of_uid(self._uid), KILL_WAIT_S)
                listen = f"KWHIST_LISTEN=unix:{self._private.socket_inside}\0".encode()
                _kill_where(_with_environ(listen), KILL_WAIT_S)
            self._log.finish(wait_s=2.0)
            if self._cgroup is not None:
                self._cgroup.remove()
            self._private.remove()
        with _registry_lock:
            if _registry.get(self.slot) is self:
                del _registry[self.slot]

    def _kill_tree(self) -> None:
        if self._cgroup is not None:
            self._cgroup.kill(0.5)  # frozen and killed at once: a fork bomb cannot outrun it
        with contextlib.suppress(OSError):
            os.killpg(self._popen.pid, signal.SIGKILL)  # our session: the process and its group
        with contextlib.suppress(OSError):
            self._popen.kill()

    def __repr__(self) -> str:
        return f"BotProcess(name={self.name!r}, slot={self.slot}, mode={self.mode}, pid={self.pid})"


def _kill_where(matches: Callable[[Path], bool], timeout_s: float) -> None:
    """SIGKILL every process whose /proc entry ``matches`` until none is left."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if not matches(entry):
                    continue
                os.kill(int(entry.name), signal.SIGKILL)
                found += 1
            except OSError:
                continue
        if not found:
            return
        time.sleep(0.01)


def _of_uid(uid: int) -> Callable[[Path], bool]:
    """A process running as ``uid`` (a slot uid, used by no one else)."""
    return lambda entry: entry.stat().st_uid == uid


def _with_environ(needle: bytes) -> Callable[[Path], bool]:
    """A process started with ``needle`` (this bot's unique ``KWHIST_LISTEN=...``) in its
    environment: every descendant of the bot that did not clear it."""
    return lambda entry: needle in (entry / "environ").read_bytes()


def kill_all() -> None:
    """Kill every BotProcess still alive (for atexit, signal handlers and the end of a league)."""
    with _registry_lock:
        processes = list(_registry.values())
    for process in processes:
        process.kill()
    with _registry_lock:
        if _registry:
            return
    cgroups.remove_groups()
    with contextlib.suppress(OSError):
        short_root().rmdir()


def live_processes() -> list[BotProcess]:
    """The registry: every process launched and not yet killed."""
    with _registry_lock:
        return list(_registry.values())


def _bot_env(
    mode: str, private: PrivateDir, resolved: ResolvedCommand, extra: Mapping[str, str] | None, rlimit_as: bool
) -> dict[str, str]:
    if mode == "none":
        env = dict(os.environ)
    else:
        env = {
            "PATH": PATH_INSIDE if mode == "bwrap" else os.environ.get("PATH", PATH_INSIDE),
            "LANG": "C.UTF-8",
            "HOME": str(private.inside),
            "TMPDIR": "/tmp" if mode == "bwrap" else str(private.inside),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        if resolved.runtime == "python" and mode == "bwrap":
            env["PATH"] = f"{Path(sys.executable).parent}:{PATH_INSIDE}"
        if rlimit_as:
            env["MALLOC_ARENA_MAX"] = "2"  # glibc reserves 64 MiB of address space per thread arena
    env["KWHIST_LISTEN"] = f"unix:{private.socket_inside}"
    env.update(extra or {})
    return env


def _effective_mode(settings: SandboxSettings) -> str:
    if settings.mode == "auto":
        return resolve_mode(settings)[0]
    if settings.mode == "bwrap":
        resolve_mode(settings)  # raises SandboxError where bubblewrap cannot run
    return settings.mode


def _drop_uid(mode: str, slot: int, bot_dir: Path, resolved: ResolvedCommand) -> int | None:
    """The slot uid a root referee runs the bot as; None to keep ours. In rlimits mode only
    when the bot's files and runtime are reachable by another user (no private mounts)."""
    if os.geteuid() != 0 or mode == "none":
        return None
    if mode == "bwrap":
        return bwrap.slot_uid(slot)
    needed = [bot_dir, Path(resolved.argv[0]).parent, *resolved.runtime_paths]
    return bwrap.slot_uid(slot) if all(reachable_by_others(p) for p in needed) else None


def launch(
    command: Sequence[str],
    *,
    name: str,
    slot: int,
    bot_dir: Path,
    run_dir: Path,
    settings: SandboxSettings,
    env: Mapping[str, str] | None = None,
) -> BotProcess:
    """Start one bot process for the bot ``name`` in ``slot`` (unique among live processes).

    ``command[0]``: ``python``/``python3`` (the referee's interpreter), ``node``, or a path
    relative to ``bot_dir``. ``bot_dir``: the bot's files, its working directory (read-only at
    its real path under bwrap). ``run_dir``: holds the log ``<name>-<slot>.log`` (kept) and the
    private writable directory ``<name>-<slot>/`` (``HOME``; removed by :meth:`BotProcess.kill`).
    The bot finds the address to serve on in ``KWHIST_LISTEN`` (``unix:<path inside>``).

    Raises BotError (one line naming the bot and the command) when the command or directory
    cannot be found or the process cannot start; SandboxError when ``mode = "bwrap"`` cannot
    run here; ValueError when ``slot`` is held by a live process.
    """
    global _atexit_registered
    mode = _effective_mode(settings)
    bot_dir = Path(os.path.realpath(bot_dir))
    if not bot_dir.is_dir():
        raise BotError(f"bot {name!r}: directory {bot_dir} does not exist")
    resolved = resolve_command(command, name=name, bot_dir=bot_dir)
    with _registry_lock:
        previous = _registry.get(slot)
    if previous is not None:
        if previous.poll() is None:
            raise ValueError(f"slot {slot} is held by {previous!r}")
        previous.kill()
    uid = _drop_uid(mode, slot, bot_dir, resolved)
    if mode == "bwrap" and uid is not None and bot_dir.stat().st_mode & 0o005 != 0o005:
        raise BotError(
            f"bot {name!r}: directory {bot_dir} is not readable by the sandbox's user {uid} (chmod o+rx it)"
        )
    run_dir = Path(os.path.abspath(run_dir))
    run_dir.mkdir(parents=True, exist_ok=True)
    stem = safe_stem(name, slot)
    log = OutputLog(run_dir / f"{stem}.log", settings.output_kb * KiB)
    private: PrivateDir | None = None
    cgroup: Cgroup | None = None
    try:
        private = make_private_dir(run_dir, stem, slot, uid=uid, mounted=mode == "bwrap")
        cgroup = Cgroup.create(stem, settings) if mode != "none" else None
        popen = _start(mode, resolved, name, bot_dir, private, cgroup, uid, settings, env, log)
    except BaseException as error:
        log.finish(wait_s=0)
        if cgroup is not None:
            cgroup.remove()
        if private is not None:
            private.remove()
        if isinstance(error, (OSError, subprocess.SubprocessError)):
            raise BotError(f"bot {name!r}: cannot start {command[0]!r}: {error}") from error
        raise
    process = BotProcess(
        name=name, slot=slot, mode=mode, popen=popen, log=log, private=private, cgroup=cgroup, uid=uid, settings=settings
    )
    with _registry_lock:
        _registry[slot] = process
        if not _atexit_registered:
            atexit.register(kill_all)
            _atexit_registered = True
    return process


def _start(
    mode: str,
    resolved: ResolvedCommand,
    name: str,
    bot_dir: Path,
    private: PrivateDir,
    cgroup: Cgroup | None,
    uid: int | None,
    settings: SandboxSettings,
    extra_env: Mapping[str, str] | None,
    log: OutputLog,
) -> subprocess.Popen[bytes]:
    # RLIMIT_AS only where no cgroup bounds memory, and not for runtimes that reserve far more
    # address space than they use (V8, the JVM): they cannot even start under it
    memory_bounded = cgroup is not None and cgroup.limits_memory
    rlimit_as = mode != "none" and not memory_bounded and resolved.runtime in ("python", "other")
    env = _bot_env(mode, private, resolved, extra_env, rlimit_as)
    if mode == "bwrap":
        argv = bwrap.bwrap_argv(resolved, bot_dir=bot_dir, private=private, settings=settings, env=env, uid=uid)
    else:
        argv = list(resolved.argv)
    nproc: int | None = None
    if mode != "none":
        if uid is not None:
            nproc = settings.pids
        elif os.geteuid() != 0 and (cgroup is None or not cgroup.limits_pids):
            nproc = limits.tasks_of_uid(os.getuid()) + settings.pids  # RLIMIT_NPROC counts per uid
    rlimits = limits.rlimits(settings, address_space=rlimit_as, nproc=nproc) if mode != "none" else []
    desc = f"mode={mode} uid={uid if uid is not None else os.geteuid()} cgroup={sorted(cgroup.leaves) if cgroup else None}"
    log.note(f"{time.strftime('%Y-%m-%d %H:%M:%S')} start {name}: {' '.join(resolved.argv)} ({desc})")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    cgroup_fds = cgroup.open_procs() if cgroup is not None else []
    preexec = limits.make_preexec(rlimits, cgroup_fds, die_with_parent=mode != "bwrap")
    drop = uid if mode != "bwrap" else None  # under bwrap, setpriv drops it inside

    def spawn() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            cwd=bot_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            close_fds=True,
            preexec_fn=preexec,
            user=drop,
            group=drop,
            extra_groups=[] if drop is not None else None,
        )

    try:
        popen = _spawner.run(spawn)
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w, *cgroup_fds):
            os.close(fd)
    log.start(out_r, err_r)
    return popen


__all__ = ["BotProcess", "SandboxError", "kill_all", "launch", "live_processes"]
