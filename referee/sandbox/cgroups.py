"""Cgroups for bot processes, where the host lets us write them (sandbox.md "Limits").

cgroup v2 (``memory.max``, ``memory.swap.max``, ``pids.max``, ``cpu.max``, ``cgroup.kill``) when
our own cgroup can delegate those controllers; else cgroup v1 hierarchies one by one
(memory + memsw, pids, cpu, freezer). Anything not writable is skipped: the rlimits set by
:mod:`referee.sandbox.limits` remain the backstop.

Layout: ``<our cgroup>/kwhist-<referee pid>-<random token>/<leaf>`` in each hierarchy, one
leaf per bot process. The referee holds an exclusive ``flock(2)`` on each of its groups for
its life; a group whose lock can be taken belongs to a referee that is gone (the kernel
dropped its lock), and only such a group is removed as stale: no pid is trusted, so two
referees in different PID namespaces never remove each other's groups. A controller that
cannot be applied is named by :func:`warning` (printed at start) and in each bot's log. The bot's process joins its leaves itself before it runs any of the bot's code, so
no fork escapes the limits: the start wrapper's shell writes ``0`` to each
:meth:`Cgroup.join_files` (:mod:`referee.sandbox.wrapper`), or, where there is no wrapper,
the forked child writes ``0`` to ``cgroup.procs`` descriptors opened here
(:meth:`Cgroup.open_procs`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from referee.sandbox._locks import try_lock
from referee.sandbox.settings import MiB, SandboxSettings

V1_CONTROLLERS = ("memory", "pids", "cpu", "freezer")
V2_CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000
GROUP_LOCK = os.O_RDONLY | os.O_DIRECTORY
"""How a group's directory is opened to hold its lock (:func:`referee.sandbox._locks.try_lock`)."""


@dataclass(frozen=True)
class Hierarchy:
    """Where our bot cgroups go: v2 -> {"v2": base}; v1 -> {controller: base}.
    ``missing``: the controllers wanted but not available or not writable here."""

    version: int
    bases: dict[str, Path]
    missing: tuple[str, ...] = ()


STALE_NAME = re.compile(r"kwhist-\d+-[0-9a-f]{8}")
_token = f"{os.getpid()}-{secrets.token_hex(4)}"
_held: dict[Path, int] = {}  # our groups -> the descriptor holding each one's lock


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, value: str) -> bool:
    try:
        with open(path, "w") as handle:
            handle.write(value)
        return True
    except OSError:
        return False


def _keyed(text: str, key: str) -> int:
    """The number after ``key`` in a flat-keyed cgroup file ("oom_kill 3"), 0 if absent."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key and parts[1].isdigit():
            return int(parts[1])
    return 0


def _mounts() -> Iterator[tuple[str, str, str, set[str]]]:
    """(fstype, mount root, mount point, super options) of each cgroup mount."""
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        yield tail[0], fields[3], fields[4].replace("\\040", " "), set(tail[2].split(","))


def _own_paths() -> dict[str, str]:
    """Our cgroup path per v1 controller, and under key "" the v2 path."""
    own: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            own[controller] = parts[2]
    return own


def _under(mount_point: str, mount_root: str, own: str) -> Path | None:
    if mount_root != "/" and not (own == mount_root or own.startswith(mount_root + "/")):
        return None
    relative = own[len(mount_root) :] if mount_root != "/" else own
    return Path(mount_point + relative.rstrip("/") if relative != "/" else mount_point)


def _group_name() -> str:
    return f"kwhist-{_token}"


def _make_group(base: Path) -> Path:
    """Make our group under ``base`` and hold its lock (for the referee's life). Raises
    OSError where it cannot be made or held."""
    group = base / _group_name()
    if group in _held:
        return group
    group.mkdir(exist_ok=True)
    fd = try_lock(group, GROUP_LOCK)
    if fd is None:
        raise OSError(f"cannot lock {group}")
    if os.fstat(fd).st_ino != group.stat().st_ino:  # removed as stale before we locked it
        os.close(fd)
        raise OSError(f"{group} was removed")
    _held[group] = fd
    return group


def _clean_stale(base: Path) -> None:
    """Remove the groups left by referees that are gone (nobody holds their lock), killing
    any process still in them (a bot that outlived its killed referee)."""
    for group in base.glob("kwhist-*"):
        if group in _held or not STALE_NAME.fullmatch(group.name):
            continue  # ours, or not of this kind (an older referee's: left alone)
        fd = try_lock(group, GROUP_LOCK)
        if fd is None:
            continue  # a live referee holds it
        try:
            for leaf in group.iterdir():
                if leaf.is_dir():
                    for pid in _read(leaf / "cgroup.procs").split():
                        with contextlib.suppress(OSError, ValueError):
                            os.kill(int(pid), signal.SIGKILL)
                    for _ in range(50):
                        try:
                            leaf.rmdir()
                            break
                        except OSError:
                            time.sleep(0.01)
            with contextlib.suppress(OSError):
                group.rmdir()
        except OSError:
            pass
        finally:
            os.close(fd)


def _try_v2() -> Hierarchy | None:
    own = _own_paths().get("")
    if own is None:
        return None
    for fstype, root, point, _options in _mounts():
        if fstype != "cgroup2":
            continue
        base = _under(point, root, own)
        if base is None:
            continue
        available = set(_read(base / "cgroup.controllers").split())
        if not {"memory", "pids"} <= available:
            continue
        wanted = [c for c in V2_CONTROLLERS if c in available]
        enabled = set(_read(base / "cgroup.subtree_control").split())
        if not set(wanted) <= enabled and not _write(
            base / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted if c not in enabled)
        ):
            continue  # our own cgroup holds processes: it cannot delegate (no internal processes)
        try:
            _clean_stale(base)
            group = _make_group(base)
        except OSError:
            continue
        if not _write(group / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted)):
            _release(group)
            continue
        return Hierarchy(2, {"v2": group}, tuple(c for c in V2_CONTROLLERS if c not in wanted))
    return None


def _try_v1() -> Hierarchy | None:
    own = _own_paths()
    bases: dict[str, Path] = {}
    for fstype, root, point, options in _mounts():
        if fstype != "cgroup":
            continue
        for controller in V1_CONTROLLERS:
            if controller not in options or controller in bases or controller not in own:
                continue
            base = _under(point, root, own[controller])
            if base is None:
                continue
            try:
                _clean_stale(base)
                bases[controller] = _make_group(base)
            except OSError:
                continue
    return Hierarchy(1, bases, tuple(c for c in V1_CONTROLLERS if c not in bases)) if bases else None


enabled = True  # tests set it False to exercise the rlimits-only path


@functools.cache
def _probe() -> Hierarchy | None:
    if not Path("/proc/self/cgroup").exists():
        return None
    return _try_v2() or _try_v1()


def hierarchy() -> Hierarchy | None:
    """The writable cgroup hierarchy of this host, probed once; None where there is none."""
    return _probe() if enabled else None


def _release(group: Path) -> None:
    """Remove our (empty) group and drop its lock."""
    with contextlib.suppress(OSError):
        group.rmdir()
    fd = _held.pop(group, None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


NO_CGROUP_WARNING = (
    "sandbox: no writable cgroup here: memory is bounded by RLIMIT_AS (not for Node, the JVM or Go), "
    "processes by RLIMIT_NPROC, and there is no CPU share"
)


def warning() -> str | None:
    """One line naming what cannot be applied here (no cgroup at all, or the controllers
    missing), for the start of a league; None when every controller applies."""
    found = hierarchy()
    if found is None:
        return NO_CGROUP_WARNING if enabled and Path("/proc/self/cgroup").exists() else None
    if found.missing:
        return f"sandbox: cgroup controllers not available here: {', '.join(found.missing)} (the rlimits stand in)"
    return None


def clean_stale_groups() -> None:
    """Remove the empty groups left behind by referees that were killed."""
    found = hierarchy()
    for group in found.bases.values() if found else ():
        with contextlib.suppress(OSError):
            _clean_stale(group.parent)


def remove_groups() -> None:
    """Remove this referee's (empty) ``kwhist-<pid>`` groups, and those left by referees that
    were killed; called once every bot is gone."""
    if _probe.cache_info().currsize == 0:
        return
    found = _probe()
    if found is None:
        return
    for group in found.bases.values():
        _release(group)
        with contextlib.suppress(OSError):
            _clean_stale(group.parent)
    _probe.cache_clear()


@dataclass
class Cgroup:
    """The cgroup leaves of one bot process (one per v1 controller, or one v2 leaf)."""

    version: int
    leaves: dict[str, Path] = field(default_factory=dict)
    memory_bytes: int = 0
    missing: list[str] = field(default_factory=list)  # controllers that could not be applied

    @classmethod
    def create(cls, leaf: str, settings: SandboxSettings) -> Cgroup | None:
        """Make the leaves named ``leaf`` with the limits of ``settings``; None if not possible."""
        found = hierarchy()
        if found is None:
            return None
        cgroup = cls(found.version, memory_bytes=settings.memory_mb * MiB, missing=list(found.missing))
        for controller, group in found.bases.items():
            path = group / leaf
            try:
                path.mkdir()
            except FileExistsError:
                pass
            except OSError:
                cgroup.missing.append(controller)
                continue
            if cgroup._configure(controller, path, settings):
                cgroup.leaves[controller] = path
            else:
                cgroup.missing.append(controller)
                with contextlib.suppress(OSError):
                    path.rmdir()
        return cgroup if cgroup.leaves else None

    def _configure(self, controller: str, path: Path, settings: SandboxSettings) -> bool:
        memory, quota = settings.memory_mb * MiB, max(1000, int(settings.cpus * CPU_PERIOD_US))
        if controller == "v2":
            ok = _write(path / "memory.max", str(memory)) and _write(path / "pids.max", str(settings.pids))
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", "0")
            _write(path / "memory.oom.group", "1")
            if (path / "cpu.max").exists():
                _write(path / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            return ok
        if controller == "memory":
            ok = _write(path / "memory.limit_in_bytes", str(memory))
            if (path / "memory.memsw.limit_in_bytes").exists():
                _write(path / "memory.memsw.limit_in_bytes", str(memory))
            return ok
        if controller == "pids":
            return _write(path / "pids.max", str(settings.pids))
        if controller == "cpu":
            return _write(path / "cpu.cfs_period_us", str(CPU_PERIOD_US)) and _write(
                path / "cpu.cfs_quota_us", str(quota)
            )
        return controller == "freezer"

    @property
    def limits_memory(self) -> bool:
        return "v2" in self.leaves or "memory" in self.leaves

    @property
    def limits_pids(self) -> bool:
        return "v2" in self.leaves or "pids" in self.leaves

    def join_files(self) -> list[Path]:
        """The file of each leaf to which a single-threaded process writes ``0`` to move
        itself in (its later children are born inside): v1 ``tasks``, v2 ``cgroup.procs``.
        On v1 a thread moving itself through ``tasks`` takes no global lock, where any write
        to ``cgroup.procs`` waits for an RCU grace period (measured ~0.5 ms against 5-15 ms
        for the four hierarchies on a loaded host)."""
        name = "cgroup.procs" if self.version == 2 else "tasks"
        return [path / name for path in self.leaves.values()]

    def open_procs(self) -> list[int]:
        """Write-only descriptors (close-on-exec) of each leaf's ``cgroup.procs``; the child
        writes ``b"0"`` to each to join, and the parent closes them after the fork."""
        fds: list[int] = []
        for path in self.leaves.values():
            try:
                fds.append(os.open(path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
            except OSError:
                continue
        return fds

    def _file(self, controller: str, v1_name: str, v2_name: str) -> str:
        if "v2" in self.leaves:
            return _read(self.leaves["v2"] / v2_name)
        if controller in self.leaves:
            return _read(self.leaves[controller] / v1_name)
        return ""

    def oom_kills(self) -> int:
        """Processes killed by the kernel for reaching the memory limit."""
        return _keyed(self._file("memory", "memory.oom_control", "memory.events"), "oom_kill")

    def memory_limit_hits(self) -> int:
        """Times the memory usage reached the limit (v1 ``memory.failcnt``, v2 ``max`` events)."""
        if "v2" in self.leaves:
            return _keyed(_read(self.leaves["v2"] / "memory.events"), "max")
        text = self._file("memory", "memory.failcnt", "")
        return int(text) if text.strip().isdigit() else 0

    def pids_limit_hits(self) -> int:
        """Forks refused at ``pids.max``."""
        return _keyed(self._file("pids", "pids.events", "pids.events"), "max")

    def pids(self) -> set[int]:
        """Every process in the bot's cgroup."""
        found: set[int] = set()
        for path in self.leaves.values():
            found |= {int(p) for p in _read(path / "cgroup.procs").split() if p.isdigit()}
        return found

    def send_kill(self) -> None:
        """SIGKILL every process in the cgroup once, without waiting (:meth:`kill` waits)."""
        v2 = self.leaves.get("v2")
        if v2 is not None and (v2 / "cgroup.kill").exists() and _write(v2 / "cgroup.kill", "1"):
            return
        with self._frozen():
            for pid in self.pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def kill(self, timeout_s: float = 5.0) -> bool:
        """SIGKILL every process in the cgroup (``cgroup.kill``; else freeze, kill, thaw) and
        wait until it is empty; True when it is."""
        deadline = time.monotonic() + timeout_s
        v2 = self.leaves.get("v2")
        if v2 is not None and (v2 / "cgroup.kill").exists() and _write(v2 / "cgroup.kill", "1"):
            return self._wait_empty(deadline)
        while time.monotonic() < deadline:
            with self._frozen():
                for pid in self.pids():
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
            if self._wait_empty(min(deadline, time.monotonic() + 0.2)):
                return True
        return not self.pids()

    @contextlib.contextmanager
    def _frozen(self) -> Iterator[None]:
        if "v2" in self.leaves:
            state, frozen, thawed = self.leaves["v2"] / "cgroup.freeze", "1", "0"
        elif "freezer" in self.leaves:
            state, frozen, thawed = self.leaves["freezer"] / "freezer.state", "FROZEN", "THAWED"
        else:
            yield
            return
        froze = _write(state, frozen)
        if froze and "freezer" in self.leaves:
            deadline = time.monotonic() + 1.0
            while _read(state).strip() != "FROZEN" and time.monotonic() < deadline:
                time.sleep(0.005)
        try:
            yield
        finally:
            if froze:
                _write(state, thawed)

    def _wait_empty(self, deadline: float) -> bool:
        while self.pids():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def remove(self) -> None:
        """Remove the (empty) leaves; a leaf still holding a process is left behind."""
        for path in self.leaves.values():
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
