"""A bot's folder as it travels to the workers of a cluster (docs/cluster.md).

The coordinator reads each bot's folder once (:func:`bundle_bot`): it hashes it and,
unless the config says the folders are on a shared path, packs the same bytes into a tar
archive, so the hash always describes the archive. A worker unpacks the archive into its
own cache (:func:`unpack`), hashes what it unpacked (or the shared folder) and refuses the
bot when the hash differs from the coordinator's.

What travels is what the bot needs: the files under its folder (its ``dir``), which hold
the files its command names. Left out, as they are the league's or a tool's, never the
bot's: ``__pycache__``, ``.git`` and ``*.pyc`` (an interpreter writes them); the league's
run folder; folders named ``results``; referee results files (SQLite files holding a
league's ``games`` and ``faults``) and SQLite journals (``-wal``, ``-shm``, ``-journal``);
logs (``*.log``, ``*.log.previous``); and sites written by ``referee export`` (a folder
holding ``index.html``, ``games.html`` and ``h2h.html``). The hash covers every file's
path relative to the folder, its executable bit and its bytes, and every symbolic link's
target, in sorted order. A file that vanishes while the folder is read is left out and
named (:attr:`BotBundle.vanished`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import sqlite3
import stat
import tarfile
import tempfile
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.errors import ConfigError

SKIPPED_DIRS = frozenset({"__pycache__", ".git", "results"})
SKIPPED_SUFFIXES = (".pyc", ".log", ".log.previous", "-wal", "-shm", "-journal")
SITE_PAGES = ("index.html", "games.html", "h2h.html")  # what `referee export` writes at a site's top
SQLITE_HEADER = b"SQLite format 3\0"
CHUNK = 1 << 20  # bytes read at a time while hashing
MAX_BYTES = 256 << 20  # the largest bot folder sent as an archive


@dataclass(frozen=True)
class BotBundle:
    """One bot's folder for the workers: ``source`` its folder on the coordinator (absolute),
    ``sha256`` the hash of what was read (hex), ``archive`` the same files as a tar archive
    (bytes), or None when the workers read ``source`` itself (a shared path); ``vanished``:
    files that disappeared while the folder was read (left out), relative to ``source``;
    ``skip``: paths under ``source`` left out by the coordinator (the league's run folder),
    relative to it, which a worker leaves out of the hash of a shared folder too."""

    name: str
    source: Path
    sha256: str
    archive: bytes | None
    vanished: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()


class BundleError(ConfigError):
    """A bot's folder cannot be sent to the workers (the message names the bot and what to do)."""


class BundleTooLarge(BundleError):
    """A bot's folder is too large to send."""


class BundleMismatch(Exception):
    """What a worker found differs from the coordinator's hash (the message says how)."""


def _entries(root: Path, skip: Collection[Path] = ()) -> Iterator[Path]:
    """Every file and link under ``root`` that travels (module docstring), in no set order."""
    for directory, dirnames, filenames in os.walk(root):
        base = Path(directory)
        if base != root and _is_site(filenames):
            dirnames[:] = []
            continue
        dirnames[:] = [name for name in dirnames if name not in SKIPPED_DIRS and base / name not in skip]
        for name in filenames:
            path = base / name
            if not name.endswith(SKIPPED_SUFFIXES) and path not in skip and not _is_results_file(path):
                yield path
        for name in dirnames:  # os.walk does not descend into links to folders: keep the link
            if (base / name).is_symlink():
                yield base / name


def _is_site(filenames: Collection[str]) -> bool:
    return all(page in filenames for page in SITE_PAGES)


def _is_results_file(path: Path) -> bool:
    """Whether ``path`` is a referee results file (an SQLite file with games and faults)."""
    try:
        with path.open("rb") as file:
            if file.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return False
        with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except (OSError, sqlite3.Error):
        return False
    return {"games", "faults"} <= tables


def _sorted(root: Path, paths: Iterator[Path]) -> list[tuple[str, Path]]:
    return sorted((path.relative_to(root).as_posix(), path) for path in paths)


def _file_header(relative: str, executable: bool, size: int) -> bytes:
    encoded = relative.encode()
    return b"F%d:%s%s%d:" % (len(encoded), encoded, b"x" if executable else b"-", size)


def _link_header(relative: str, target: str) -> bytes:
    encoded, aim = relative.encode(), target.encode()
    return b"L%d:%s%d:%s" % (len(encoded), encoded, len(aim), aim)


def tree_hash(root: Path, skip: Collection[Path] = ()) -> str:
    """sha256 (hex) of the folder ``root`` as described in the module docstring (files that
    vanish meanwhile left out). OSError when it cannot be read."""
    digest = hashlib.sha256()
    for relative, path in _sorted(root, _entries(root, skip)):
        try:
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                digest.update(_link_header(relative, os.readlink(path)))
            elif stat.S_ISREG(info.st_mode):  # sockets, pipes: not part of a bot
                with path.open("rb") as file:
                    size = os.fstat(file.fileno()).st_size
                    digest.update(_file_header(relative, bool(info.st_mode & stat.S_IXUSR), size))
                    while chunk := file.read(CHUNK):
                        digest.update(chunk)
        except FileNotFoundError:
            continue
    return digest.hexdigest()


def bundle_bot(
    name: str, source: Path, *, shared: bool, command: Sequence[str] = (), skip: Collection[Path] = ()
) -> BotBundle:
    """Read the folder ``source`` of the bot ``name`` once: its hash and, unless ``shared``,
    an archive of the same bytes. ``command``: the bot's command, whose files must lie in
    ``source`` to travel; ``skip``: paths never read (the league's results and run folder).

    Raises BundleTooLarge when an archive would exceed :data:`MAX_BYTES` of files;
    BundleError when the folder or one of its files cannot be read, or (archive) the command
    names a file outside the folder."""
    source = source.absolute()
    if not shared:
        _check_command(name, source, command)
    inside = tuple(path.absolute().relative_to(source).as_posix() for path in skip if source in path.absolute().parents)
    try:
        return _read(name, source, shared, {source / relative for relative in inside}, inside)
    except OSError as error:
        where = error.filename or source
        raise BundleError(
            f"bot {name!r}: cannot read {where} to send it to the workers: {error.strerror or error}"
        ) from None


def _check_command(name: str, source: Path, command: Sequence[str]) -> None:
    for part in command[1:]:
        path = Path(part)
        if path.is_absolute() and path != source and source not in path.parents and path.is_file():
            raise BundleError(
                f"bot {name!r}: its command names {path}, outside its folder {source}; workers receive only "
                "the folder: move the file into it, or set the bot's 'dir' to a folder that holds both"
            )


def _read(name: str, source: Path, shared: bool, skip: Collection[Path], inside: tuple[str, ...] = ()) -> BotBundle:
    digest = hashlib.sha256()
    vanished: list[str] = []
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        for relative, path in _sorted(source, _entries(source, skip)):
            try:
                info = path.lstat()
                if stat.S_ISLNK(info.st_mode):
                    target = os.readlink(path)
                    digest.update(_link_header(relative, target))
                    member = tarfile.TarInfo(relative)
                    member.type, member.linkname = tarfile.SYMTYPE, target
                    archive.addfile(member)
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue
                with path.open("rb") as file:
                    data = file.read() if not shared else None
                    size = len(data) if data is not None else os.fstat(file.fileno()).st_size
                    executable = bool(info.st_mode & stat.S_IXUSR)
                    digest.update(_file_header(relative, executable, size))
                    if data is None:
                        while chunk := file.read(CHUNK):
                            digest.update(chunk)
                        continue
            except FileNotFoundError:
                vanished.append(relative)
                continue
            total += size
            if total > MAX_BYTES:
                raise BundleTooLarge(
                    f"bot {name!r}: its folder {source} holds more than the {MAX_BYTES >> 20} MiB sent to "
                    "workers: give the bot its own 'dir', or put the bots on a path every worker shares "
                    '([cluster] bots = "shared")'
                )
            digest.update(data)
            member = tarfile.TarInfo(relative)
            member.size, member.mode = size, 0o755 if executable else 0o644
            archive.addfile(member, io.BytesIO(data))
    archived = None if shared else buffer.getvalue()
    return BotBundle(name, source, digest.hexdigest(), archived, tuple(vanished), inside)


def pack(root: Path) -> bytes:
    """A gzipped tar archive (bytes) of the files :func:`tree_hash` covers (for tests that
    forge an archive; :func:`bundle_bot` packs and hashes in one read)."""
    bundle = _read("", root.absolute(), False, ())
    assert bundle.archive is not None
    return bundle.archive


def unpack(bundle: BotBundle, cache: Path) -> Path:
    """The folder a worker runs ``bundle``'s bot from, its hash checked.

    A shared bundle: ``bundle.source`` itself. Else the archive unpacked to
    ``cache/<sha256>/`` (kept for later games and leagues; a folder already there is hashed
    again). Raises BundleMismatch when the hash of what is there differs from
    ``bundle.sha256``; OSError or tarfile.TarError when it cannot be read or unpacked.
    """
    if bundle.archive is None:
        if not bundle.source.is_dir():
            raise BundleMismatch(f"shared folder {bundle.source} does not exist on this worker")
        found = tree_hash(bundle.source, [bundle.source / relative for relative in bundle.skip])
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
