"""Checks that the files a config names exist, before anything starts.

Paths in a config are taken from the folder ``referee`` runs in; a bot's command runs in
the bot's own folder. A missing file is one line naming the key and the folder used.
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePath

from referee.config.settings import BotSpec
from referee.errors import ConfigError

INTERPRETERS = ("python", "python3", "node")
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs")


def _exists(part: str, directory: Path) -> bool:
    path = Path(part)
    return path.exists() or (directory / path).exists()


def check_bot_files(source: Path, index: int, bot: BotSpec) -> None:
    """Raise ConfigError when bot ``index``'s folder, program or script does not exist."""
    if bot.remote:
        return
    where = f"{source}: bots[{index}]"
    here = Path.cwd()
    if not bot.dir.is_dir():
        raise ConfigError(f"{where}.dir: folder '{bot.dir}' not found (paths are taken from {here})")
    program, *arguments = bot.command
    if "/" in program:
        if not _exists(program, bot.dir):
            raise ConfigError(f"{where}.command: program '{program}' not found (paths are taken from {here})")
    elif program not in INTERPRETERS and shutil.which(program) is None:
        raise ConfigError(f"{where}.command: program '{program}' is not on PATH; give its path")
    for part in arguments:
        if part.startswith("-"):
            continue
        if PurePath(part).suffix in SCRIPT_SUFFIXES and not _exists(part, bot.dir):
            raise ConfigError(f"{where}.command: file '{part}' not found (paths are taken from {here})")
        break


def check_ro_paths(source: Path, key: str, paths: tuple[str, ...]) -> None:
    """Raise ConfigError for an ``ro_paths`` entry that does not exist."""
    for path in paths:
        if not Path(path).exists():
            raise ConfigError(f"{source}: {key}: '{path}' not found (paths are taken from {Path.cwd()})")
