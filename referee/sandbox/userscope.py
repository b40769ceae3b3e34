"""Per-bot cgroups for a normal user through systemd's user manager (sandbox.md "Limits").

On a systemd desktop the user manager (``user@UID.service``) owns a delegated cgroup v2
subtree with the ``memory`` and ``pids`` controllers (and ``cpu`` on recent systemd). A
referee that is not root, and whose own cgroup it cannot write, starts each bot process as
a transient scope of that manager::

    systemd-run --user --scope --quiet --collect --unit=kwhist-<pid>-<token>-<slot> \\
        -p TasksMax=<pids> -p MemoryMax=<memory_mb>M -p MemorySwapMax=0 -p CPUQuota=<cpus*100>% -- <bot>

``systemd-run`` asks the manager to move its own process into the new scope's cgroup and
waits for it, then runs the bot there: nothing of the bot runs outside its limits. The
scope's cgroup belongs to the user, so the referee reads its counters and kills it through
its files (:class:`ScopeCgroup`); systemd removes the scope once it is empty. Probed once
(:func:`available`): a scope is started and its ``pids.max`` read back.
"""

from __future__ import annotations

import functools
import itertools
import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from referee.sandbox import cgroups
from referee.sandbox.cgroups import Cgroup
from referee.sandbox.settings import SandboxSettings

PROBE_TIMEOUT_S = 10.0
PROBE_TASKS = 7  # the TasksMax of the probe's scope, read back from its pids.max
_TOKEN = f"{os.getpid()}-{secrets.token_hex(4)}"
BUS_VARIABLES = ("XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS")
_serial = itertools.count(1)  # unit names stay unique while systemd still collects an old scope

enabled = True  # tests set it False (or True with a stand-in systemd-run)


@dataclass(frozen=True)
class UserManager:
    """A reachable systemd user manager: ``controllers`` its scopes get (of memory, pids, cpu),
    ``slice`` the cgroup directory its transient scopes go in, ``bus`` the variables
    ``systemd-run`` needs."""

    systemd_run: str
    controllers: frozenset[str]
    slice: Path
    bus: tuple[tuple[str, str], ...]


def _bus() -> dict[str, str]:
    """What ``systemd-run --user`` needs to find the user bus (our own variables, else the
    runtime directory systemd-logind makes)."""
    found = {key: os.environ[key] for key in BUS_VARIABLES if os.environ.get(key)}
    runtime = Path(f"/run/user/{os.getuid()}")
    if "XDG_RUNTIME_DIR" not in found and (runtime / "bus").exists():
        found["XDG_RUNTIME_DIR"] = str(runtime)
    return found


def _v2_mount() -> Path | None:
    for fstype, _root, point, _options in cgroups._mounts():
        if fstype == "cgroup2":
            return Path(point)
    return None


@functools.cache
def _probe() -> UserManager | None:
    tool = shutil.which("systemd-run")
    bus = _bus()
    mount = _v2_mount()
    if os.geteuid() == 0 or tool is None or not bus or mount is None:
        return None
    script = 'path=$(sed -n "s/^0:://p" /proc/self/cgroup); echo "$path"; cat "$1$path/pids.max" "$1$path/cgroup.controllers"'
    argv = [tool, "--user", "--scope", "--quiet", "--collect", f"-pTasksMax={PROBE_TASKS}", "--", "/bin/sh", "-c", script, "sh", str(mount)]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL, env={**os.environ, **bus}
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.split("\n")
    if done.returncode != 0 or len(lines) < 3 or lines[1].strip() != str(PROBE_TASKS) or not lines[0].startswith("/"):
        return None
    controllers = frozenset(lines[2].split()) & set(cgroups.CONTROLLERS)
    scope = mount / lines[0].strip().lstrip("/")  # our scopes go beside the probe's
    return UserManager(tool, controllers, scope.parent, tuple(sorted(bus.items()))) if "pids" in controllers else None


def available() -> UserManager | None:
    """The systemd user manager that can give this referee's bots cgroups of their own, or
    None (root, no user manager, no bus, or its scopes get no pids controller)."""
    return _probe() if enabled else None


@dataclass
class ScopeCgroup(Cgroup):
    """The cgroup of one bot process's transient scope (its leaf exists from the moment
    ``systemd-run`` moved the process until the scope is empty)."""

    unit: str = ""
    manager: UserManager | None = None
    settings: SandboxSettings = field(default_factory=SandboxSettings)

    @classmethod
    def for_bot(cls, stem: str, settings: SandboxSettings, manager: UserManager) -> ScopeCgroup:
        """The scope of one bot process (``stem``: its file-name-safe ``<name>-<slot>``)."""
        missing = sorted(set(cgroups.CONTROLLERS) - manager.controllers)
        safe = "".join(char if char.isalnum() or char in "-_" else "_" for char in stem)
        unit = f"kwhist-{_TOKEN}-{next(_serial)}-{safe}"
        return cls(manager.slice / f"{unit}.scope", missing, unit=unit, manager=manager, settings=settings)

    def argv_prefix(self) -> list[str]:
        """``systemd-run`` starting the rest of the argv in this scope, with the limits; the
        bus variables it needs are set for it and removed before the bot runs."""
        assert self.manager is not None
        settings = self.settings
        properties = [f"TasksMax={settings.pids}"]
        if "memory" in self.manager.controllers:
            properties += [f"MemoryMax={settings.memory_mb}M", "MemorySwapMax=0"]
        if "cpu" in self.manager.controllers:
            properties.append(f"CPUQuota={max(1, round(settings.cpus * 100))}%")
        env = shutil.which("env") or "/usr/bin/env"
        return [
            env,
            *(f"{key}={value}" for key, value in self.manager.bus),
            self.manager.systemd_run,
            "--user",
            "--scope",
            "--quiet",
            "--collect",
            f"--unit={self.unit}",
            *(f"-p{prop}" for prop in properties),
            "--",
            env,
            *(f"--unset={key}" for key, _value in self.manager.bus),
        ]

    def describe(self) -> str:
        """For the bot's log: the scope and what it bounds."""
        controllers = ",".join(sorted(self.manager.controllers)) if self.manager else ""
        return f"systemd user scope {self.unit} ({controllers})"

    def join_files(self) -> list[Path]:
        return []  # systemd moves the process itself

    def open_procs(self) -> list[int]:
        return []

    def remove(self) -> None:
        """Nothing to do: systemd removes the scope once it is empty (``--collect``)."""

