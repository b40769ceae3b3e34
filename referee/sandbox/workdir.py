"""A bot process's private writable directory, its home, and its Unix socket.

Under bubblewrap the home is a tmpfs of ``home_mb`` MiB at :data:`INSIDE` (``/bot``) inside
the sandbox: bounded in total, and gone with the sandbox. In the rlimits and none modes it
is ``run_dir/<name>-<slot>/``, made fresh for each process, owned by the bot's uid, mode
0700, seen at its host path. The bot serves on ``bot.sock`` in its home. A Unix socket path
must stay under 108 bytes (``sun_path``), so when a host one would be too long the directory
goes to ``/tmp/kwhist-<referee pid>-<token>/<slot>/`` instead.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from referee.sandbox.cleanup import remove_tree

INSIDE = Path("/bot")
SOCKET_NAME = "bot.sock"
MAX_SOCKET_PATH = 107  # bytes; sun_path is 108 with the terminating NUL


def safe_stem(name: str, slot: int) -> str:
    """A file-name-safe ``<name>-<slot>``."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "bot"
    return f"{cleaned[:40]}-{slot}"


_TOKEN = secrets.token_hex(4)  # a referee in another PID namespace may have our pid


def short_root() -> Path:
    """``/tmp/kwhist-<pid>-<token>``: where private directories go when run_dir's path is
    too long."""
    return Path(f"/tmp/kwhist-{os.getpid()}-{_TOKEN}")


def reachable_by_others(path: Path) -> bool:
    """Whether a user with no group in common (``other``) can traverse every directory of
    ``path`` (and the last one, too)."""
    current = Path(os.path.realpath(path))
    for directory in (current, *current.parents):
        try:
            if not directory.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def private_folder(path: Path) -> None:
    """Make ``path`` and its missing parents as folders only their owner can open (0700),
    and close ``path`` to others when it exists and is ours: the league's run folder (bot
    logs, traces, homes) is not readable by a bot running as another uid (a slot uid under a
    root referee, docs/sandbox.md). Raises OSError."""
    missing = [folder for folder in (path, *path.parents) if not folder.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    if path.stat().st_uid == os.geteuid():
        os.chmod(path, 0o700)


@dataclass
class PrivateDir:
    """The bot's home: a host directory (``host``, with a descriptor ``home_fd`` the referee
    opened before the bot ran), or, under bubblewrap, a tmpfs inside the sandbox (``host``
    None: nothing of it is on the host). ``inside``: the path the bot sees."""

    host: Path | None
    inside: Path
    home_fd: int | None = None

    @property
    def socket_inside(self) -> Path:
        return self.inside / SOCKET_NAME

    def remove(self) -> str | None:
        """Delete the directory and everything the bot left in it (idempotent; any depth, no
        link followed, modes of 000 too: :func:`referee.sandbox.cleanup.remove_tree`).
        Never raises: -> None, or one line saying what could not be removed."""
        if self.home_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.home_fd)
            self.home_fd = None
        if self.host is None:
            return None
        problem = None
        try:
            remove_tree(self.host)
        except (OSError, ValueError) as error:
            problem = f"clean-up: could not remove {self.host}: {error}"
        root = short_root()
        if root in self.host.parents:
            with contextlib.suppress(OSError):
                root.rmdir()
        return problem


def tmpfs_home() -> PrivateDir:
    """The home of a bot under bubblewrap: a tmpfs at :data:`INSIDE`, nothing on the host."""
    return PrivateDir(None, INSIDE)


def make_private_dir(run_dir: Path, stem: str, slot: int, *, uid: int | None) -> PrivateDir:
    """Make the fresh private host directory for one process (removing a stale one of the
    same name), seen by the bot at its host path (rlimits and none modes). ``uid``: chown
    it to that uid (a root referee dropping the bot's privileges). Raises OSError."""
    host = run_dir / stem
    too_long = len(os.fsencode(host / SOCKET_NAME)) > MAX_SOCKET_PATH
    if too_long or (uid is not None and not reachable_by_others(run_dir)):
        root = short_root()
        root.mkdir(mode=0o711, exist_ok=True)
        os.chmod(root, 0o711)
        host = root / str(slot)
    if host.exists() or host.is_symlink():
        PrivateDir(host, host).remove()
    host.mkdir(mode=0o700)
    if uid is not None:
        os.chown(host, uid, uid)
    os.chmod(host, 0o700)
    home_fd = os.open(host, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    return PrivateDir(host, host, home_fd)
