"""Turn a bot's command into an executable path, and tell which runtime paths it needs.

A bare ``python``/``python3`` -> the referee's own interpreter (``sys.executable``, with the
packages of the referee's environment: grpc and ``referee.botkit``); ``node`` -> ``node`` on
the referee's PATH; anything else -> a path relative to the bot's directory, an absolute
path, or a name on the referee's PATH. A path is run as given, never replaced by what it
points to: ``/path/venv/bin/python`` runs that virtualenv (with its own packages), and under
bubblewrap both the virtualenv and the installation it points into are mounted; so are the
folders outside ``/usr`` a JVM's installation links into (Debian keeps its configuration in
``/etc/java-<version>-openjdk``). A script is looked into for the runtime it starts (its
``#!`` line, or the ``node`` or ``java`` a shell script runs), so a ``run.sh`` or a
``#!/usr/bin/env node`` bot gets what that runtime needs, as the runtime given directly does.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from referee.errors import BotError

Runtime = Literal["python", "node", "java", "other"]

SYSTEM_PREFIX = Path("/usr")


@dataclass(frozen=True)
class ResolvedCommand:
    """``argv[0]`` is an absolute executable path; ``runtime`` the language runtime it
    starts, itself or through a script (:func:`script_runtime`); ``runtime_paths`` are host
    paths the command needs read-only (besides /usr and the bot's directory); ``path_dirs``
    go first on the bot's ``PATH`` under bubblewrap (the folder of the runtime a script
    starts by name, where it is not in /usr)."""

    argv: tuple[str, ...]
    runtime: Runtime
    runtime_paths: tuple[Path, ...]
    path_dirs: tuple[Path, ...] = ()


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
    return "other"


SCRIPT_HEAD = 64 * 1024  # of a script, what is read to find the runtime it starts
SHELLS = ("sh", "bash", "dash", "zsh", "ksh")
_SHELL_RUNS = re.compile(rb"(?m)^[^#\n]*?(?:^|[\s;&|(])(?:exec\s+)?((?:\S*/)?(?:node|nodejs|java))(?=[\s;&|)]|$)")


def script_runtime(path: Path) -> tuple[Runtime, str | None]:
    """The runtime a script starts, and the program as the script names it: the
    interpreter of its ``#!`` line (``#!/usr/bin/env node``, ``#!/usr/bin/node``), or, for a
    shell script, the first ``node`` or ``java`` it runs (``exec java -cp build Main``).
    ``("other", None)`` for anything else, or a file that cannot be read."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SCRIPT_HEAD)
    except OSError:
        return "other", None
    if not head.startswith(b"#!"):
        return "other", None
    line, _, body = head.partition(b"\n")
    words = line[2:].decode(errors="replace").split()
    if words and Path(words[0]).name == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not words:
        return "other", None
    program = words[0]
    runtime = _runtime(Path(program))
    if runtime != "other":
        return runtime, program
    if Path(program).name in SHELLS and (found := _SHELL_RUNS.search(body)) is not None:
        named = found.group(1).decode(errors="replace")
        return _runtime(Path(named)), named
    return "other", None


def _outside_paths(executable: Path, bot_dir: Path) -> list[Path]:
    """The installation an executable outside ``/usr`` and the bot's directory needs
    mounted: where its links lead, the folder its path names, a virtualenv's packages."""
    if _under(executable, bot_dir):
        return []
    given = _given_install_dir(executable)
    needed = [] if _under(Path(os.path.realpath(executable)), SYSTEM_PREFIX) else [_install_dir(executable), given]
    if (given / "pyvenv.cfg").is_file():
        needed.append(given)  # a virtualenv, also of the system's Python: its packages
    return [path for path in needed if not _under(path, SYSTEM_PREFIX)]


def _program(named: str) -> Path | None:
    """The program a script names, as the referee finds it: a path, else a name on PATH."""
    if "/" in named:
        return Path(named) if Path(named).is_file() else None
    found = shutil.which(named)
    return Path(found) if found is not None else None


def resolve_command(command: Sequence[str], *, name: str, bot_dir: Path) -> ResolvedCommand:
    """Resolve ``command`` for the bot ``name`` whose files are in ``bot_dir`` (absolute).

    Raises BotError (one line naming the bot and the command) when it is empty, cannot be
    found, or is not executable.
    """
    if not command or not command[0]:
        raise BotError(f"bot {name!r}: empty command")
    first, rest = command[0], tuple(command[1:])
    if first in ("python", "python3"):
        return ResolvedCommand((sys.executable, *rest), "python", python_paths(), (Path(sys.executable).parent,))
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
    runner: Path | None = found  # the runtime's program: the command's own, or the one a script starts
    if runtime == "other":
        runtime, named = script_runtime(found)
        runner = _program(named) if named is not None else None
    paths: list[Path] = []
    path_dirs: tuple[Path, ...] = ()
    if Path(os.path.realpath(found)) == Path(os.path.realpath(sys.executable)):
        runtime, paths, path_dirs = "python", list(python_paths()), (Path(sys.executable).parent,)
    elif runtime == "java" and runner is not None:
        paths = list(jvm_config_dirs(runner))
    paths += _outside_paths(found, bot_dir)
    if runner is not None and runner != found:
        paths += _outside_paths(runner, bot_dir)
        if not _under(Path(os.path.realpath(runner)), SYSTEM_PREFIX):
            path_dirs = (runner.absolute().parent,)
    return ResolvedCommand((str(found), *rest), runtime, tuple(dict.fromkeys(paths)), path_dirs)
