"""Remove a directory tree a bot wrote, whatever it made of it (docs/sandbox.md "Clean-up").

Iterative, so no depth makes it recurse; descriptor-based (``openat``, ``unlinkat``), so no
path grows past ``PATH_MAX`` and no symbolic link is ever followed (a link is removed, never
its target); a directory the bot made unreadable or unwritable (mode 000) is made 0700 first.
It holds one directory descriptor at a time, however deep the tree, and lists each directory
once. Meant for trees no live process writes any more (the bot is reaped first).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_dir(parent_fd: int, name: str) -> int:
    """A read descriptor of the directory ``name`` in ``parent_fd`` (never a link's target),
    its mode raised to 0700 where the owner lacked any of rwx."""
    handle = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
    try:
        proc = f"/proc/self/fd/{handle}"
        if os.fstat(handle).st_mode & 0o700 != 0o700:
            with contextlib.suppress(OSError):
                os.chmod(proc, 0o700)
        return os.open(proc, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    finally:
        os.close(handle)


def _clear_files(fd: int) -> list[str]:
    """Unlink every entry of the directory ``fd`` that is not a directory; -> the names of
    its subdirectories."""
    subdirs: list[str] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.name)
            else:
                os.unlink(entry.name, dir_fd=fd)
    return subdirs


def remove_tree(path: Path) -> None:
    """Delete ``path`` and everything under it (a file or link at ``path``: just that entry).
    Nothing to do when it does not exist. Raises OSError for what could not be removed."""
    parent_fd = os.open(path.parent, _DIR_FLAGS)
    fd = parent_fd
    try:
        try:
            info = os.stat(path.name, dir_fd=parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(path.name, dir_fd=parent_fd)
            return
        fd = _open_dir(parent_fd, path.name)
        stack: list[tuple[str, list[str]]] = [(path.name, _clear_files(fd))]
        while stack:
            name, pending = stack[-1]
            if pending:
                child = pending.pop()
                child_fd = _open_dir(fd, child)
                os.close(fd)
                fd = child_fd
                stack.append((child, _clear_files(fd)))
                continue
            stack.pop()
            up = os.open("..", _DIR_FLAGS, dir_fd=fd) if stack else parent_fd
            os.close(fd)
            fd = up
            os.rmdir(name, dir_fd=up)
    finally:
        if fd != parent_fd:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.close(parent_fd)
