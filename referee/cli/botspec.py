"""Bots named on the command line: a sample bot's name, an address, or a command."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from referee.config import BotSpec, resolve_command
from referee.config.paths import check_bot_files
from referee.errors import ConfigError
from referee.league.pool import BotEntry

REPO = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO / "sample_bots"
SAMPLE_BOTS: dict[str, tuple[str, ...]] = {
    "random": ("python", "python/random_bot.py"),
    "heuristic": ("python", "python/heuristic_bot.py"),
    "search": ("python", "python/search_bot.py"),
    "node": ("node", "node/bot.js"),
    "cpp": ("cpp/build/kwhist_cpp_bot",),
    "go": ("go/build/kwhist_go_bot",),
    "java": ("java", "-XX:+UseSerialGC", "-jar", "java/build/kwhist-java-bot.jar"),
}
PROGRAMS = ("python", "node", "java")  # a sample's words that are not its files
_ADDRESS = re.compile(r"^(unix:.+|[\w.\-]+:\d+|\[[0-9a-fA-F:]+\]:\d+)$")


def parse_bot(text: str, taken: set[str]) -> BotEntry:
    """``heuristic`` | ``NAME=COMMAND`` | ``python mybot.py`` | ``127.0.0.1:50051`` | ``unix:/path``.

    Names are made unique with ``-2``, ``-3``... Raises ConfigError for an unknown sample
    name that is not a file either, and, as a config's check does, for a command that
    cannot run (a script without its interpreter, an interpreter not installed), one line
    with a command that would work.
    """
    name, _, rest = text.partition("=") if "=" in text.split()[0] else ("", "", text)
    rest = rest.strip()
    if rest in SAMPLE_BOTS:
        parts = SAMPLE_BOTS[rest]
        command = tuple(part if part in PROGRAMS or part.startswith("-") else str(SAMPLE_DIR / part) for part in parts)
        entry = BotEntry(name=name or rest, command=command, directory=Path(command[-1]).parent)
    elif _ADDRESS.match(rest):
        entry = BotEntry(name=name or rest, address=rest)
    else:
        command = resolve_command(tuple(shlex.split(rest)))
        script = next((Path(part) for part in reversed(command) if Path(part).is_file()), None)
        if script is None:
            raise ConfigError(
                f"bot {text!r}: not a sample bot ({', '.join(SAMPLE_BOTS)}), an address (host:port, unix:/path) "
                "or a command whose program file exists"
            )
        written = tuple(shlex.split(rest))
        spec = BotSpec(name or script.stem, command, None, script.resolve().parent)
        check_bot_files("command line", f"bot {text!r}", spec, written, dir_written=False, example=_shell_example)
        entry = BotEntry(name=name or script.stem, command=command, directory=script.resolve().parent)
    unique = entry.name
    number = 2
    while unique in taken:
        unique = f"{entry.name}-{number}"
        number += 1
    taken.add(unique)
    return BotEntry(unique, entry.command, entry.address, entry.directory, entry.ro_paths)


def _shell_example(command: Sequence[str]) -> str:
    """A suggested command as it is typed on the command line: ``"python bot.py"``."""
    return f'"{shlex.join(command)}"'


def parse_bots(texts: Sequence[str]) -> tuple[BotEntry, ...]:
    taken: set[str] = set()
    return tuple(parse_bot(text, taken) for text in texts)
