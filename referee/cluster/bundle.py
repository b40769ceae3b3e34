"""A bot's folder as it travels to the workers of a cluster (docs/cluster.md).

The coordinator hashes each bot's folder (:func:`tree_hash`) and, unless the config says
the folders are on a shared path, packs it into a tar archive (:func:`pack`). A worker
unpacks the archive into its own cache (:func:`unpack`), hashes what it unpacked (or the
shared folder) and refuses the bot when the hash differs from the coordinator's.

The hash covers every file's path relative to the folder, its executable bit and its
bytes, and every symbolic link's target, in sorted order; ``__pycache__``, ``.git`` and
``*.pyc`` are left out (an interpreter writes them, so two copies of one bot would differ).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.errors import ConfigError

SKIPPED_DIRS = frozenset({"__pycache__", ".git"})
SKIPPED_SUFFIXES = (".pyc",)
CHUNK = 1 << 20  # bytes read at a time while hashing
MAX_BYTES = 256 << 20  # the largest bot folder sent as an archive


@dataclass(frozen=True)
class BotBundle:
    """One bot's folder for the workers: ``source`` its folder on the coordinator (absolute),
    ``sha256`` the :func:`tree_hash` of it (hex), ``archive`` its tar archive (bytes), or
    None when the workers read ``source`` itself (a shared path)."""

    name: str
    source: Path
    sha256: str
    archive: bytes | None


class BundleTooLarge(ConfigError):
    """A bot's folder is too large to send (the message names the bot and what to do)."""


class BundleMismatch(Exception):
    """What a worker found differs from the coordinator's hash (the message says how)."""


def _entries(root: Path) -> Iterator[Path]:
    """Every file and link under ``root`` that the hash covers, sorted by relative path."""
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if name not in SKIPPED_DIRS)
        base = Path(directory)
        for name in sorted(filenames):
            if not name.endswith(SKIPPED_SUFFIXES):
                yield base / name
        for name in dirnames:  # os.walk does not descend into links to folders: hash the link
            if (base / name).is_symlink():
                yield base / name


def tree_hash(root: Path) -> str:
    """sha256 (hex) of the folder ``root`` as described in the module docstring.
    OSError when it cannot be read."""
    digest = hashlib.sha256()
    for path in sorted(_entries(root), key=lambda entry: entry.relative_to(root).as_posix()):
        relative = path.relative_to(root).as_posix().encode()
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            target = os.readlink(path).encode()
            digest.update(b"L%d:%s%d:%s" % (len(relative), relative, len(target), target))
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # sockets, pipes: not part of a bot
        executable = b"x" if info.st_mode & stat.S_IXUSR else b"-"
        digest.update(b"F%d:%s%s%d:" % (len(relative), relative, executable, info.st_size))
        with path.open("rb") as file:
            while chunk := file.read(CHUNK):
                digest.update(chunk)
    return digest.hexdigest()


def pack(root: Path) -> bytes:
    """A gzipped tar archive (bytes) of the files :func:`tree_hash` covers."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        for path in _entries(root):
            archive.add(path, arcname=path.relative_to(root).as_posix(), recursive=False)
    return buffer.getvalue()


def bundle_bot(name: str, source: Path, *, shared: bool) -> BotBundle:
    """Hash (and unless ``shared``, pack) the folder ``source`` of the bot ``name``.
    Raises BundleTooLarge when an archive would exceed :data:`MAX_BYTES` of files;
    OSError when the folder cannot be read."""
    source = source.absolute()
    if not shared:
        size = sum(path.lstat().st_size for path in _entries(source))
        if size > MAX_BYTES:
            raise BundleTooLarge(
                f"bot {name!r}: its folder {source} holds {size >> 20} MiB, more than the "
                f"{MAX_BYTES >> 20} MiB sent to workers: give the bot its own 'dir', or put the bots "
                'on a path every worker shares ([cluster] bots = "shared")'
            )
    return BotBundle(name, source, tree_hash(source), None if shared else pack(source))


def unpack(bundle: BotBundle, cache: Path) -> Path:
    """The folder a worker runs ``bundle``'s bot from, its hash checked.

    A shared bundle: ``bundle.source`` itself. Else the archive unpacked to
    ``cache/<sha256>/`` (kept for later games and leagues; a folder already there was
    checked when it was unpacked). Raises BundleMismatch when the hash of what is there
    differs from ``bundle.sha256``; OSError or tarfile.TarError when it cannot be read or
    unpacked.
    """
    if bundle.archive is None:
        if not bundle.source.is_dir():
            raise BundleMismatch(f"shared folder {bundle.source} does not exist on this worker")
        found = tree_hash(bundle.source)
        if found != bundle.sha256:
            raise BundleMismatch(
                f"shared folder {bundle.source} differs from the coordinator's "
                f"(sha256 {found[:12]}, expected {bundle.sha256[:12]})"
            )
        return bundle.source
    target = cache / bundle.sha256
    if target.is_dir():
        found = tree_hash(target) if target.stat().st_uid == os.getuid() else "not ours"
        if found != bundle.sha256:
            raise BundleMismatch(f"the unpacked copy {target} was changed on this worker ({found[:12]}): remove it")
        return target
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache))
    try:
        with tarfile.open(fileobj=io.BytesIO(bundle.archive), mode="r:gz") as archive:
            archive.extractall(staging, filter="data")
        found = tree_hash(staging)
        if found != bundle.sha256:
            raise BundleMismatch(f"its archive unpacked to sha256 {found[:12]}, expected {bundle.sha256[:12]}")
        _readable_by_all(staging)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # else another task of this worker unpacked it first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _readable_by_all(root: Path) -> None:
    """Folders 0755, files readable by all: a root worker runs bots as an unprivileged uid."""
    for directory, _dirs, files in os.walk(root):
        os.chmod(directory, 0o755)
        for name in files:
            path = Path(directory) / name
            if not path.is_symlink():
                os.chmod(path, path.stat().st_mode | 0o444)


def relocate(command: Sequence[str], source: Path, target: Path) -> tuple[str, ...]:
    """``command`` with every absolute path inside ``source`` moved to the same place
    inside ``target`` (the config made a bot's script paths absolute on the coordinator)."""
    moved = []
    for part in command:
        path = Path(part)
        if path.is_absolute() and (path == source or source in path.parents):
            moved.append(str(target / path.relative_to(source)))
        else:
            moved.append(part)
    return tuple(moved)
