"""A bot process's private writable directory, its home, and its Unix socket.

``run_dir/<name>-<slot>/`` is made fresh for each process, owned by the bot's uid, mode 0700;
the bot serves on ``bot.sock`` inside it. A Unix socket path must stay under 108 bytes
(``sun_path``), so when that one would be too long the directory goes to
``/tmp/kwhist-<referee pid>/<slot>/`` instead. Under bwrap the directory is mounted at
:data:`INSIDE` (``/bot``); otherwise the bot sees it at its host path.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

INSIDE = Path("/bot")
SOCKET_NAME = "bot.sock"
MAX_SOCKET_PATH = 107  # bytes; sun_path is 108 with the terminating NUL


def safe_stem(name: str, slot: int) -> str:
    """A file-name-safe ``<name>-<slot>``."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "bot"
    return f"{cleaned[:40]}-{slot}"


def short_root() -> Path:
    """``/tmp/kwhist-<pid>``: where private directories go when run_dir's path is too long."""
    return Path(f"/tmp/kwhist-{os.getpid()}")


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


@dataclass
class PrivateDir:
    """The host directory, the bot's view of it, and the socket path on both sides."""

    host: Path
    inside: Path

    @property
    def socket_host(self) -> Path:
        return self.host / SOCKET_NAME

    @property
    def socket_inside(self) -> Path:
        return self.inside / SOCKET_NAME

    def remove(self) -> None:
        """Delete the directory and everything the bot left in it (idempotent)."""

        def unlock(function: object, path: str, _error: object) -> None:
            with contextlib.suppress(OSError):
                os.chmod(os.path.dirname(path), 0o700)
                os.chmod(path, 0o700)
            with contextlib.suppress(OSError):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)

        if self.host.exists():
            shutil.rmtree(self.host, onerror=unlock)
        root = short_root()
        if root in self.host.parents:
            with contextlib.suppress(OSError):
                root.rmdir()


def make_private_dir(run_dir: Path, stem: str, slot: int, *, uid: int | None, mounted: bool) -> PrivateDir:
    """Make the fresh private directory for one process (removing a stale one of the same
    name). ``uid``: chown it to that uid (a root referee dropping the bot's privileges);
    ``mounted``: the bot sees it at :data:`INSIDE` (bwrap)."""
    host = run_dir / stem
    too_long = len(os.fsencode(host / SOCKET_NAME)) > MAX_SOCKET_PATH
    if too_long or (uid is not None and not mounted and not reachable_by_others(run_dir)):
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
    return PrivateDir(host, INSIDE if mounted else host)
