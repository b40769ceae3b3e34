"""The bubblewrap command line for one bot (sandbox.md "A recipe that was measured to work").

Inside the sandbox: no network, a fresh PID namespace and ``/proc``, private IPC and UTS,
``/usr`` and the runtime's paths read-only at their real paths, ``/etc`` holding only what the
dynamic loader and TLS need, a tmpfs ``/tmp`` of ``tmp_mb`` MiB, the bot's directory
read-only at its real path (the working directory), and a tmpfs home of ``home_mb`` MiB at
``/bot`` (``HOME``; the socket is ``/bot/bot.sock``), nothing of which is on the host. The environment is cleared. A root
referee drops the bot to a uid/gid of its own with ``setpriv`` ("Root is a trap"); a
non-root referee runs bwrap in a user namespace with further namespaces disabled.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from referee.errors import ConfigError
from referee.sandbox.command import ResolvedCommand
from referee.sandbox.settings import MiB, SandboxSettings
from referee.sandbox.workdir import PrivateDir

SLOT_UIDS = range(61000, 61184)  # one per live bot process; systemd's DynamicUser= starts at 61184
# What a runtime reads from /etc: the loader's cache, the links behind /usr/bin names
# (Debian's alternatives), TLS (openssl.cnf, certs/) and the time zone. Not bound, since
# nothing a bot runs reads them: ld.so.conf(.d) (only ldconfig does) and ca-certificates/
# (update-ca-certificates); nor nsswitch.conf: without it glibc looks up users in files only
# (there are none inside), which spares the setpriv of every start loading NSS modules.
# Each bind costs bubblewrap a mount and a parse of the mount table.
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/localtime",
)
TOP_LEVEL_SYSTEM = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def executable() -> str | None:
    """Path of ``bwrap``, or None when bubblewrap is not installed."""
    return shutil.which("bwrap")


@functools.cache
def setpriv() -> str | None:
    """Path of util-linux ``setpriv``, or None (looked up once)."""
    found = shutil.which("setpriv")
    if found is None and os.access("/usr/bin/setpriv", os.X_OK):
        found = "/usr/bin/setpriv"
    return found


def setpriv_args(uid: int) -> list[str]:
    """``setpriv`` dropping to ``uid`` with no groups, no capabilities, no new privileges."""
    return [
        setpriv() or "/usr/bin/setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def base_args(settings: SandboxSettings, *, as_root: bool) -> list[str]:
    """Namespaces, system mounts, /proc, /dev and /tmp: everything but the bot's own paths."""
    args = [
        executable() or "bwrap",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
        "--new-session",
    ]
    if not as_root:
        args += ["--unshare-user", "--disable-userns"]
    args += ["--ro-bind", "/usr", "/usr"]
    for top in TOP_LEVEL_SYSTEM:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in ETC_FILES:
        args += ["--ro-bind-try", path, path]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(settings.tmp_mb * MiB), "--tmpfs", "/tmp"]
    return args


def _covered(path: Path, others: Iterable[Path]) -> bool:
    return any(other != path and other in path.parents for other in others)


def same_path_binds(paths: Iterable[Path]) -> list[Path]:
    """Paths to bind read-only at themselves: the real path too where it differs, no path
    inside another or inside /usr, parents before children."""
    wanted: set[Path] = set()
    for path in paths:
        absolute = Path(os.path.abspath(path))
        wanted.add(absolute)
        wanted.add(Path(os.path.realpath(absolute)))
    wanted = {p for p in wanted if p.exists() and p != Path("/usr") and Path("/usr") not in p.parents}
    return sorted((p for p in wanted if not _covered(p, wanted)), key=lambda p: (len(p.parts), str(p)))


def node_module_binds(bot_dir: Path) -> list[tuple[Path, Path]]:
    """(source, destination) of the ``node_modules`` directories Node would search from the
    bot's directory: those of its ancestors at their path, a symlinked one of its own at its
    real path (a symlinked ``node_modules`` does not resolve otherwise)."""
    binds: list[tuple[Path, Path]] = []
    own = bot_dir / "node_modules"
    if own.is_symlink() and own.is_dir():
        real = Path(os.path.realpath(own))
        binds.append((real, real))
    for ancestor in bot_dir.parents:
        candidate = ancestor / "node_modules"
        if candidate.is_dir():
            binds.append((Path(os.path.realpath(candidate)), candidate))
    return binds


def ro_paths(settings: SandboxSettings) -> list[Path]:
    """The ``[sandbox] ro_paths``; raises ConfigError naming a path that does not exist."""
    paths = []
    for path in settings.ro_paths:
        absolute = Path(os.path.abspath(path))
        if not absolute.exists():
            raise ConfigError(f"[sandbox] ro_paths: {path} does not exist")
        paths.append(absolute)
    return paths


def bwrap_argv(
    resolved: ResolvedCommand,
    *,
    bot_dir: Path,
    private: PrivateDir,
    settings: SandboxSettings,
    env: Mapping[str, str],
    uid: int | None,
    seccomp_fd: int | None = None,
    inside: Sequence[str] = (),
    hidden: tuple[Path, ...] = (),
) -> list[str]:
    """The full ``bwrap`` argv running ``resolved`` for one bot process.

    ``uid``: drop to this uid with setpriv (root referee); None runs bwrap in a user namespace.
    ``inside``: an argv prefix run inside the sandbox before the bot (a normal user's
    ``prlimit`` setting the bot's own ``RLIMIT_NPROC``: :mod:`referee.sandbox.nproc`).
    ``env`` is the bot's whole environment. ``seccomp_fd``: the descriptor (kept open
    across the start) from which bwrap reads the seccomp filter (:mod:`referee.sandbox.seccomp`).
    ``hidden``: folders (the league's results and run folder) covered by an empty tmpfs
    where they lie inside a folder the bot sees (its own, a runtime's, ``ro_paths``). Raises ConfigError for a missing ``ro_paths`` entry.
    The mounts are resolved once per (settings, runtime paths, bot directory) and reused for
    the referee's life: a path changed later (a symlink re-pointed, an ``ro_paths`` entry
    removed) is seen only by a new referee, or fails the bot's start in bwrap.
    """
    args = list(mount_args(resolved.runtime, resolved.runtime_paths, bot_dir, settings, uid is not None, hidden))
    args += ["--perms", "1777", "--size", str(settings.home_mb * MiB), "--tmpfs", str(private.inside)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--chdir", str(bot_dir), "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args.append("--")
    if uid is not None:
        args += setpriv_args(uid)
    args += [*inside, *resolved.argv]
    return args


@functools.lru_cache(maxsize=256)
def mount_args(
    runtime: str,
    runtime_paths: tuple[Path, ...],
    bot_dir: Path,
    settings: SandboxSettings,
    as_root: bool,
    hidden: tuple[Path, ...] = (),
) -> tuple[str, ...]:
    """bwrap's options up to the bot's private directory: :func:`base_args`, then the
    runtime's paths, the bot's directory and ``ro_paths`` read-only at their real paths (and
    Node's ``node_modules``), then an empty tmpfs over each ``hidden`` folder inside one of
    them (:func:`bwrap_argv`). Cached (see :func:`bwrap_argv`); raises ConfigError for a
    missing ``ro_paths`` entry (not cached)."""
    args = base_args(settings, as_root=as_root)
    made = {Path(p) for p in ("/", "/usr", "/etc", "/tmp", "/proc", "/dev")}

    def parents(destination: Path) -> list[str]:
        # bwrap makes missing parents 0700 inside the tmpfs /tmp: make them 0755 ourselves
        dirs: list[str] = []
        for parent in reversed(destination.parents):
            if parent not in made:
                made.add(parent)
                dirs += ["--perms", "0755", "--dir", str(parent)]
        return dirs

    binds = same_path_binds([*runtime_paths, bot_dir, *ro_paths(settings)])
    for path in binds:
        args += [*parents(path), "--ro-bind", str(path), str(path)]
        made.add(path)
    if runtime == "node":
        for source, destination in node_module_binds(bot_dir):
            if not _covered(destination, binds) and destination not in binds:
                args += [*parents(destination), "--ro-bind", str(source), str(destination)]
    for folder in hidden_folders(hidden, binds):
        args += ["--tmpfs", str(folder)]
    return tuple(args)


def hidden_folders(hidden: Iterable[Path], binds: Iterable[Path]) -> list[Path]:
    """The folders of ``hidden`` (real paths) that lie inside one of ``binds`` and hold none
    of them: those a bot would otherwise see, and can be covered without hiding its files."""
    bound = list(binds)
    found = []
    for path in hidden:
        real = Path(os.path.realpath(path))
        if real.is_dir() and _covered(real, bound) and not any(real == b or real in b.parents for b in bound):
            found.append(real)
    return found
