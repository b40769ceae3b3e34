"""Cgroups for bot processes: cgroup v2 only, where the host lets us write it (sandbox.md "Limits").

Where our own cgroup in the v2 hierarchy can delegate the ``memory`` and ``pids``
controllers (and ``cpu`` where it has it), each bot process gets a leaf of its own with
``memory.max``, ``memory.swap.max`` 0, ``pids.max`` and ``cpu.max``, and is killed through
``cgroup.kill`` (before Linux 5.14: frozen through ``cgroup.freeze``, then killed pid by pid).
A host with no such cgroup (none writable, or the controllers held by the older v1
hierarchy: :func:`legacy_host`) gets none: the rlimits of :mod:`referee.sandbox.limits` and
:mod:`referee.sandbox.nproc` bound each bot, and :func:`warning` says so in one line at start.
A normal user's systemd scopes are the other way to a v2 leaf (:mod:`referee.sandbox.userscope`).

Layout: ``<our cgroup>/kwhist-<referee pid>-<random token>/<leaf>``, one leaf per bot
process. The referee holds an exclusive ``flock(2)`` on its group for its life; a group
whose lock can be taken belongs to a referee that is gone (the kernel dropped its lock), and
only such a group is removed as stale: no pid is trusted, so two referees in different PID
namespaces never remove each other's groups. A controller that cannot be delegated (cpu) is
named by :func:`warning` (printed at start) and in each bot's log. The bot's process joins
its leaf itself before it runs any of the bot's code, so no fork escapes the limits: the
start wrapper's shell writes ``0`` to :meth:`Cgroup.join_files` (:mod:`referee.sandbox.wrapper`),
or, where there is no wrapper, the forked child writes ``0`` to the ``cgroup.procs``
descriptor opened here (:meth:`Cgroup.open_procs`).
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

CONTROLLERS = ("memory", "pids", "cpu")
REQUIRED = frozenset({"memory", "pids"})  # without both, a leaf bounds too little to be worth it
CPU_PERIOD_US = 100_000
GROUP_LOCK = os.O_RDONLY | os.O_DIRECTORY
"""How a group's directory is opened to hold its lock (:func:`referee.sandbox._locks.try_lock`)."""
MOUNTINFO = Path("/proc/self/mountinfo")
OWN_CGROUP = Path("/proc/self/cgroup")  # tests point both at a host of their own making


@dataclass(frozen=True)
class Hierarchy:
    """Where our bot cgroups go: ``group``, our ``kwhist-<pid>-<token>`` directory in the v2
    hierarchy; ``missing``: the controllers of :data:`CONTROLLERS` it cannot have here."""

    group: Path
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
    for line in _read(MOUNTINFO).splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        yield tail[0], fields[3], fields[4].replace("\\040", " "), set(tail[2].split(","))


def legacy_host() -> bool:
    """Whether this host keeps ``memory`` or ``pids`` in the older v1 hierarchy (a mount of
    type ``cgroup``, not ``cgroup2``): a controller is in one hierarchy only, so v2 lacks it."""
    return any(fstype == "cgroup" and options & REQUIRED for fstype, _root, _point, options in _mounts())


def _own_path() -> str | None:
    """Our cgroup in the v2 hierarchy (the ``0::`` line of ``/proc/self/cgroup``), or None."""
    for line in _read(OWN_CGROUP).splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


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


def _find() -> Hierarchy | None:
    """Our group under our own v2 cgroup, where that can delegate :data:`REQUIRED`."""
    own = _own_path()
    if own is None:
        return None
    for fstype, root, point, _options in _mounts():
        if fstype != "cgroup2":
            continue
        base = _under(point, root, own)
        if base is None:
            continue
        available = set(_read(base / "cgroup.controllers").split())
        if not REQUIRED <= available:
            continue
        wanted = [c for c in CONTROLLERS if c in available]
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
        return Hierarchy(group, tuple(c for c in CONTROLLERS if c not in wanted))
    return None


enabled = True  # tests set it False to exercise the rlimits-only path


@functools.cache
def _probe() -> Hierarchy | None:
    return _find() if OWN_CGROUP.exists() else None


def hierarchy() -> Hierarchy | None:
    """Our writable group in the cgroup v2 hierarchy, probed once; None where there is none."""
    return _probe() if enabled else None


def _release(group: Path) -> None:
    """Remove our (empty) group and drop its lock."""
    with contextlib.suppress(OSError):
        group.rmdir()
    fd = _held.pop(group, None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


RLIMITS_STAND_IN = (
    "memory is bounded by RLIMIT_DATA (what each bot commits), processes by RLIMIT_NPROC, and there is no CPU share"
)
NO_CGROUP_WARNING = f"sandbox: no writable cgroup here: {RLIMITS_STAND_IN}"
LEGACY_WARNING = f"sandbox: no cgroup v2 controllers here (the host has v1 only): {RLIMITS_STAND_IN}"


def missing_warning(missing: tuple[str, ...] | list[str]) -> str:
    """The line naming the cgroup controllers a host cannot give the bots."""
    return f"sandbox: cgroup controllers not available here: {', '.join(missing)} (the rlimits stand in)"


def warning() -> str | None:
    """One line naming what cannot be applied here, for the start of a league and of
    ``check-bot`` and ``play``: no cgroup at all (:data:`LEGACY_WARNING` where the host keeps
    its controllers in the v1 hierarchy, else :data:`NO_CGROUP_WARNING`), or the controllers
    missing; None when every controller applies."""
    found = hierarchy()
    if found is None:
        if not enabled or not OWN_CGROUP.exists():
            return None
        return LEGACY_WARNING if legacy_host() else NO_CGROUP_WARNING
    return missing_warning(found.missing) if found.missing else None


def clean_stale_groups() -> None:
    """Remove the empty groups left behind by referees that were killed."""
    found = hierarchy()
    if found is not None:
        with contextlib.suppress(OSError):
            _clean_stale(found.group.parent)


def remove_groups() -> None:
    """Remove this referee's (empty) ``kwhist-<pid>`` group, and those left by referees that
    were killed; called once every bot is gone."""
    if _probe.cache_info().currsize == 0:
        return
    found = _probe()
    if found is None:
        return
    _release(found.group)
    with contextlib.suppress(OSError):
        _clean_stale(found.group.parent)
    _probe.cache_clear()


def _configure(path: Path, settings: SandboxSettings) -> bool:
    """Write the limits of ``settings`` into the leaf ``path``; False where memory or pids
    cannot be set (swap, the OOM group and cpu are set where the host has them)."""
    ok = _write(path / "memory.max", str(settings.memory_mb * MiB)) and _write(path / "pids.max", str(settings.pids))
    if (path / "memory.swap.max").exists():
        _write(path / "memory.swap.max", "0")
    _write(path / "memory.oom.group", "1")
    if (path / "cpu.max").exists():
        _write(path / "cpu.max", f"{max(1000, int(settings.cpus * CPU_PERIOD_US))} {CPU_PERIOD_US}")
    return ok


@dataclass
class Cgroup:
    """The cgroup v2 leaf of one bot process: ``path``; ``missing``, the controllers of
    :data:`CONTROLLERS` it does not have (the rlimits stand in)."""

    path: Path
    missing: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, leaf: str, settings: SandboxSettings) -> Cgroup | None:
        """Make the leaf named ``leaf`` with the limits of ``settings``; None if not possible."""
        found = hierarchy()
        if found is None:
            return None
        path = found.group / leaf
        try:
            path.mkdir()
        except FileExistsError:
            pass
        except OSError:
            return None
        if not _configure(path, settings):
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path, list(found.missing))

    @property
    def limits_memory(self) -> bool:
        return "memory" not in self.missing

    @property
    def limits_pids(self) -> bool:
        return "pids" not in self.missing

    def describe(self) -> str:
        """For the bot's log: the controllers that bound it."""
        return ",".join(sorted(set(CONTROLLERS) - set(self.missing)))

    def join_files(self) -> list[Path]:
        """The file to which a process writes ``0`` to move itself in (its later children are
        born inside): the leaf's ``cgroup.procs``."""
        return [self.path / "cgroup.procs"]

    def open_procs(self) -> list[int]:
        """A write-only descriptor (close-on-exec) of the leaf's ``cgroup.procs`` (none where it
        cannot be opened); the child writes ``b"0"`` to it to join, and the parent closes it
        after the fork."""
        try:
            return [os.open(self.path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)]
        except OSError:
            return []

    def oom_kills(self) -> int:
        """Processes killed by the kernel for reaching the memory limit."""
        return _keyed(_read(self.path / "memory.events"), "oom_kill")

    def pids_limit_hits(self) -> int:
        """Forks refused at ``pids.max``."""
        return _keyed(_read(self.path / "pids.events"), "max")

    def pids(self) -> set[int]:
        """Every process in the bot's cgroup."""
        return {int(p) for p in _read(self.path / "cgroup.procs").split() if p.isdigit()}

    def _kill_at_once(self) -> bool:
        """``cgroup.kill`` (Linux 5.14+): every process of the leaf killed by the kernel."""
        return (self.path / "cgroup.kill").exists() and _write(self.path / "cgroup.kill", "1")

    def send_kill(self) -> None:
        """SIGKILL every process in the cgroup once, without waiting (:meth:`kill` waits)."""
        if self._kill_at_once():
            return
        with self._frozen():
            for pid in self.pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def kill(self, timeout_s: float = 5.0) -> bool:
        """SIGKILL every process in the cgroup (``cgroup.kill``; else freeze, kill, thaw) and
        wait until it is empty; True when it is."""
        deadline = time.monotonic() + timeout_s
        if self._kill_at_once():
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
        state = self.path / "cgroup.freeze"
        froze = _write(state, "1")
        try:
            yield
        finally:
            if froze:
                _write(state, "0")

    def _wait_empty(self, deadline: float) -> bool:
        while self.pids():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def remove(self) -> None:
        """Remove the (empty) leaf; a leaf still holding a process is left behind."""
        for _ in range(50):
            try:
                self.path.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)
