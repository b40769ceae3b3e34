"""Checks that the files a config names exist and can run, before anything starts.

Paths in a config are taken from the folder ``referee`` runs in; a bot's command runs in
the bot's own folder. A missing file, a folder or a script given as the program, or an
interpreter that is not installed is one line naming the bot, the key the teacher wrote
and, where one helps, a command that would work (``e.g. command = ["python", "bot.py"]``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath

from referee.config.settings import BotSpec
from referee.errors import ConfigError

PYTHONS = ("python", "python3")
INTERPRETERS = (*PYTHONS, "node")
SCRIPT_SUFFIXES = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node"}
_LOOKS_LIKE_INTERPRETER = re.compile(r"^(python|pypy|node|nodejs)[0-9.]*$")
_FOLDER_ENTRY = {"python": ("__main__.py",), "node": ("package.json", "index.js")}


def _locate(part: str, directory: Path) -> Path | None:
    """``part`` as a path from the current folder, else from the bot's folder; None if neither exists."""
    for path in (Path(part), directory / part):
        if path.exists():
            return path
    return None


def _suggest_script(folder: Path, interpreter: str | None) -> str:
    """A script in ``folder`` to suggest: one whose name has "bot", else "main", else the first; ``bot.py`` if none."""
    try:
        scripts = sorted(
            entry.name
            for entry in folder.iterdir()
            if entry.is_file() and SCRIPT_SUFFIXES.get(entry.suffix) is not None
            and (interpreter is None or SCRIPT_SUFFIXES[entry.suffix] == interpreter)
        )
    except OSError:
        scripts = []
    for word in ("bot", "main"):
        named = [name for name in scripts if word in name.lower()]
        if named:
            return named[0]
    return scripts[0] if scripts else "bot.py" if interpreter != "node" else "bot.js"


def _example(command: Sequence[str]) -> str:
    """``command = ["python", "bot.py"]`` as a teacher would write it in the config."""
    return "command = " + json.dumps(list(command), ensure_ascii=False)


def _has_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(2) == b"#!"
    except OSError:
        return False


def check_bot_files(
    source: Path | str,
    label: str,
    bot: BotSpec,
    written: Sequence[str] = (),
    *,
    dir_written: bool = True,
    example: Callable[[Sequence[str]], str] | None = None,
) -> None:
    """Raise ConfigError (``<source>: <label>: <key>: ...``) when the bot's folder, program
    or script does not exist or cannot run: a script without an interpreter, a folder as
    the program or script, an interpreter that is not installed.

    ``label`` names the bot (``bot "alpha"``); ``written`` is its command as written in the
    config (default: ``bot.command``); ``dir_written`` says whether the config gave ``dir``
    (otherwise the folder came from the command, and the command is the key to blame).
    ``example`` writes a suggested command as the user would type it (default: as a config's
    ``command = [...]``; ``referee play`` and ``check-bot`` pass a shell line).
    """
    if bot.remote or bot.human:
        return
    show = example or _example
    command = tuple(written) or bot.command
    where = f"{source}: {label}"
    taken = f"(paths are taken from {Path.cwd()})"
    if dir_written and not bot.dir.is_dir():
        raise ConfigError(f"{where}: dir: folder '{bot.dir}' not found {taken}")

    def fail(message: str) -> ConfigError:
        return ConfigError(f"{where}: command: {message}")

    program, *arguments = command
    interpreter = _check_program(program, arguments, bot.dir, fail, taken, show)
    if interpreter is not None and not [part for part in arguments if not part.startswith("-")]:
        raise fail(f"'{program}' with no script: e.g. {show([program, _suggest_script(bot.dir, interpreter)])}")
    for part in arguments:
        if part in ("-m", "-c", "-e", "--eval"):
            break  # a module or inline code: nothing to find on disk
        if part.startswith("-"):
            continue
        found = _locate(part, bot.dir)
        if found is None and PurePath(part).suffix in SCRIPT_SUFFIXES:
            raise fail(f"file '{part}' not found {taken}")
        if found is not None and found.is_dir() and interpreter is not None:
            if not any((found / entry).is_file() for entry in _FOLDER_ENTRY.get(interpreter, ())):
                script = f"{part.rstrip('/')}/{_suggest_script(found, interpreter)}"
                raise fail(f"'{part}' is a folder, not a script: e.g. {show([program, script, *arguments[arguments.index(part) + 1 :]])}")
        break
    if not bot.dir.is_dir():
        raise fail(f"folder '{bot.dir}' (where the bot runs, taken from its command) not found {taken}")


def _check_program(
    program: str,
    arguments: Sequence[str],
    directory: Path,
    fail: Callable[[str], ConfigError],
    taken: str,
    show: Callable[[Sequence[str]], str] = _example,
) -> str | None:
    """Check the program of a command; return ``"python"`` / ``"node"`` when it is an
    interpreter the referee knows, else None. ``fail(message)`` builds the error to raise."""
    if program in PYTHONS:
        return "python"
    if program == "node":
        if shutil.which("node") is None:
            raise fail("interpreter 'node' is not installed here (not on PATH): install Node.js or give the path of node")
        return "node"
    suffix = PurePath(program).suffix
    looks_like = _LOOKS_LIKE_INTERPRETER.match(PurePath(program).name) is not None
    if "/" in program:
        found = _locate(program, directory)
    elif (directory / program).is_file():
        found = directory / program
    else:
        on_path = shutil.which(program)
        folder = _locate(program, directory)
        found = Path(on_path) if on_path else folder if folder is not None and folder.is_dir() else None
    if found is None:
        if suffix in SCRIPT_SUFFIXES and "/" not in program:
            raise fail(f"'{program}' is a script, not a program: start it with its interpreter, e.g. {show([SCRIPT_SUFFIXES[suffix], program, *arguments])}")
        missing = f"'{program}' not found {taken}" if "/" in program else f"'{program}' is not on PATH"
        if looks_like:
            script = next((part for part in arguments if not part.startswith("-")), "bot.py")
            raise fail(f"interpreter {missing}: write \"python\" for the referee's own Python, e.g. {show(['python', script])}")
        raise fail(f"program {missing}" + ("" if "/" in program else "; give its path"))
    if found.is_dir():
        interpreter = "node" if _suggest_script(found, None).endswith("js") else "python"
        script = f"{program.rstrip('/')}/{_suggest_script(found, interpreter)}"
        raise fail(f"'{program}' is a folder, not a program: e.g. {show([interpreter, script, *arguments])}")
    if suffix in SCRIPT_SUFFIXES and not (os.access(found, os.X_OK) and _has_shebang(found)):
        raise fail(f"'{program}' is a script, not a program: start it with its interpreter, e.g. {show([SCRIPT_SUFFIXES[suffix], program, *arguments])}")
    if not os.access(found, os.X_OK):
        raise fail(f"'{program}' is not executable: run  chmod +x {program}  or start it with its interpreter")
    return None


def check_ro_paths(source: Path, key: str, paths: tuple[str, ...]) -> None:
    """Raise ConfigError for an ``ro_paths`` entry that does not exist."""
    for path in paths:
        if not Path(path).exists():
            raise ConfigError(f"{source}: {key}: '{path}' not found (paths are taken from {Path.cwd()})")
