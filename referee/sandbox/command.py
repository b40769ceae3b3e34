"""Turn a bot's command into an executable path, and tell which runtime paths it needs.

A bare ``python``/``python3`` -> the referee's own interpreter (``sys.executable``, with the
packages of the referee's environment: grpc and ``referee.botkit``); ``node`` -> ``node`` on
the referee's PATH; anything else -> a path relative to the bot's directory, an absolute
path, or a name on the referee's PATH. A path is run as given, never replaced by what it
points to: ``/path/venv/bin/python`` runs that virtualenv (with its own packages), and under
bubblewrap both the virtualenv and the installation it points into are mounted; so are the
folders outside ``/usr`` a JVM's installation links into (Debian keeps its configuration in
``/etc/java-<version>-openjdk``).
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from referee.errors import BotError

Runtime = Literal["python", "node", "java", "go", "other"]

SYSTEM_PREFIX = Path("/usr")


@dataclass(frozen=True)
class ResolvedCommand:
    """``argv[0]`` is an absolute executable path; ``runtime_paths`` are host paths the
    command needs read-only (besides /usr and the bot's directory)."""

    argv: tuple[str, ...]
    runtime: Runtime
    runtime_paths: tuple[Path, ...]


def _under(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


@functools.cache
def python_paths() -> tuple[Path, ...]:
    """The interpreter's installation, the virtualenv, and the referee package's source
    directory when it is installed editable (so ``import referee.botkit`` works in a bot).
    Computed once (none of them moves while the referee runs)."""
    paths = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    paths.add(Path(os.path.realpath(sys.executable)).parent)
    import referee

    package = Path(os.path.realpath(referee.__file__)).parent
    if not any(_under(package, p) for p in paths):
        paths.add(package)
    return tuple(sorted(paths))


def _install_dir(executable: Path) -> Path:
    """An executable's installation: ``<prefix>`` for ``<prefix>/bin/x``, else its directory."""
    real = Path(os.path.realpath(executable))
    return real.parent.parent if real.parent.name == "bin" else real.parent


def _given_install_dir(executable: Path) -> Path:
    """The installation an executable's path names, links not followed: ``<venv>`` for
    ``<venv>/bin/python``, else its directory."""
    return executable.parent.parent if executable.parent.name == "bin" else executable.parent


@functools.cache
def jvm_config_dirs(java: Path) -> tuple[Path, ...]:
    """The folders outside ``/usr`` that a JVM's installation links into, which it reads at
    start: on Debian ``/etc/java-17-openjdk`` (``conf/security/java.security`` and the rest
    are links there) and ``/etc/ssl`` (its ``cacerts``). Two levels deep, links not followed."""
    home = Path(os.path.realpath(java)).parent.parent
    found: set[Path] = set()
    for root, dirs, files in os.walk(home):
        for name in (*dirs, *files):
            path = Path(root) / name
            if path.is_symlink():
                target = Path(os.path.realpath(path))
                if not _under(target, SYSTEM_PREFIX) and target.exists() and len(target.parts) >= 3:
                    found.add(Path(*target.parts[:3]))
    return tuple(sorted(found))


def _runtime(executable: Path) -> Runtime:
    name = executable.name
    if name.startswith("node"):
        return "node"
    if name in ("java", "javaw"):
        return "java"
    if is_go_program(executable):
        return "go"
    return "other"


ELF_HEAD = 64 * 1024  # the program headers and the Go build id note lie in the first page or so


def is_go_program(path: Path) -> bool:
    """Whether ``path`` is an ELF program built by Go: it carries the Go linker's build id
    note (owner ``Go``, type 4) in a ``PT_NOTE`` segment within its first
    :data:`ELF_HEAD` bytes. 64-bit little-endian ELF only; False for anything else, or a
    file that cannot be read."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(ELF_HEAD)
    except OSError:
        return False
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        return False
    phoff, phentsize, phnum = int.from_bytes(head[32:40], "little"), int.from_bytes(head[54:56], "little"), int.from_bytes(head[56:58], "little")
    for index in range(phnum):
        header = head[phoff + index * phentsize : phoff + (index + 1) * phentsize]
        if len(header) < 56 or int.from_bytes(header[0:4], "little") != 4:  # PT_NOTE
            continue
        offset, size = int.from_bytes(header[8:16], "little"), int.from_bytes(header[32:40], "little")
        notes = head[offset : offset + size]
        while len(notes) >= 12:
            namesz, descsz, kind = (int.from_bytes(notes[i : i + 4], "little") for i in (0, 4, 8))
            name = notes[12 : 12 + namesz]
            if name == b"Go\x00\x00"[:namesz] and namesz == 4 and kind == 4:
                return True
            notes = notes[12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4 :]
    return False


def resolve_command(command: Sequence[str], *, name: str, bot_dir: Path) -> ResolvedCommand:
    """Resolve ``command`` for the bot ``name`` whose files are in ``bot_dir`` (absolute).

    Raises BotError (one line naming the bot and the command) when it is empty, cannot be
    found, or is not executable.
    """
    if not command or not command[0]:
        raise BotError(f"bot {name!r}: empty command")
    first, rest = command[0], tuple(command[1:])
    if first in ("python", "python3"):
        return ResolvedCommand((sys.executable, *rest), "python", python_paths())
    candidate = Path(first)
    found: Path | None = None
    if "/" in first:
        found = candidate if candidate.is_absolute() else bot_dir / candidate
        if not found.exists():
            raise BotError(f"bot {name!r}: command {first!r} not found (looked in {bot_dir})")
    elif (bot_dir / first).is_file():
        found = bot_dir / first
    else:
        on_path = shutil.which(first)
        if on_path is None:
            raise BotError(f"bot {name!r}: command {first!r} not found (looked in {bot_dir} and on PATH)")
        found = Path(on_path)
    found = found.absolute()
    mode = found.stat().st_mode
    if not stat.S_ISREG(mode) or not os.access(found, os.X_OK):
        raise BotError(f"bot {name!r}: command {first!r} is not an executable file ({found}; try chmod +x)")
    runtime = _runtime(found)
    paths: tuple[Path, ...] = ()
    if Path(os.path.realpath(found)) == Path(os.path.realpath(sys.executable)):
        runtime, paths = "python", python_paths()
    elif runtime == "java":
        paths = jvm_config_dirs(found)
    if not _under(found, bot_dir):
        given = _given_install_dir(found)
        needed = [] if _under(Path(os.path.realpath(found)), SYSTEM_PREFIX) else [_install_dir(found), given]
        if (given / "pyvenv.cfg").is_file():
            needed.append(given)  # a virtualenv, also of the system's Python: its packages
        paths = tuple(dict.fromkeys([*paths, *(path for path in needed if not _under(path, SYSTEM_PREFIX))]))
    return ResolvedCommand((str(found), *rest), runtime, paths)
