"""Find a bot's listening socket so that the referee reaches the process it started, and
no other (docs/sandbox.md "The bot's socket").

The bot binds ``bot.sock`` in its home, a directory it can write. The referee never dials
that path: it opens the entry itself with ``O_PATH | O_NOFOLLOW`` through descriptors it
holds (never a path the bot can redirect), checks that it is a socket inode owned by the
bot's uid, and dials ``/proc/self/fd/<n>``, which names that inode whatever the bot does
to its paths afterwards. A link, a file, or a socket owned by another uid (another bot's)
is refused: a ``startup`` fault for that bot.

Under bubblewrap the home is a tmpfs inside the bot's mount namespace: the referee reaches
it through ``/proc/<pid>/root`` of bubblewrap's own child (the sandbox's init, which the
bot cannot change), only once that root is no longer the host's.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from referee.errors import BotError

_PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


class SocketRefused(BotError):
    """The bot's socket path holds something the referee will not dial."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a socket"


def open_socket(home_fd: int, name: str, uid: int, *, who: str) -> int | None:
    """An ``O_PATH`` descriptor of the socket ``name`` in the directory ``home_fd``, or None
    while it does not exist. Raises SocketRefused (naming ``who``) when the entry is not a
    socket inode owned by ``uid``."""
    try:
        fd = os.open(name, _PATH_FLAGS, dir_fd=home_fd)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SocketRefused(f"{who}: cannot open its socket {name}: {error.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISSOCK(info.st_mode):
        os.close(fd)
        raise SocketRefused(f"{who}: its socket path {name} is {_kind(info.st_mode)}, not a socket it bound")
    if info.st_uid != uid:
        os.close(fd)
        raise SocketRefused(f"{who}: its socket {name} belongs to uid {info.st_uid}, not to the bot's uid {uid}")
    return fd


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split() if word.isdigit()]


def sandbox_home_fd(bwrap_pid: int, home: Path) -> int | None:
    """An ``O_PATH`` descriptor of ``home`` (absolute, one level: ``/bot``) inside the
    sandbox of the bubblewrap process ``bwrap_pid``, or None while the sandbox is not set up
    (no child yet, its root still the host's, or ``home`` not mounted yet)."""
    ours = os.stat("/")
    for child in _children(bwrap_pid):
        try:
            root = os.open(f"/proc/{child}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            info = os.fstat(root)
            if (info.st_dev, info.st_ino) == (ours.st_dev, ours.st_ino):
                continue  # bubblewrap has not changed its root yet
            with contextlib.suppress(OSError):
                return os.open(home.name, _PATH_FLAGS | os.O_DIRECTORY, dir_fd=root)
        finally:
            os.close(root)
    return None


def address_of(fd: int) -> str:
    """The gRPC address dialling the socket inode held by ``fd`` (in this process)."""
    return f"unix:/proc/self/fd/{fd}"
