"""Bots named on the command line: a sample bot's name, an address, or a command."""

from __future__ import annotations

import glob
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from referee.config import BotSpec, resolve_command
from referee.config.paths import check_bot_files
from referee.config.schema import NAME_RULE, is_name
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
HUMAN, HUMAN_PREFIX = "you", "human:"  # a person's seat on the command line
_ADDRESS = re.compile(r"^(unix:.+|[\w.\-]+:\d+|\[[0-9a-fA-F:]+\]:\d+)$")


def parse_bot(text: str, taken: set[str]) -> BotEntry:
    """``heuristic`` | ``NAME=COMMAND`` | ``python mybot.py`` | ``127.0.0.1:50051`` | ``unix:/path``
    | ``you`` or ``human:NAME`` (a person, who plays in the browser: :mod:`referee.league.human`).

    A command is split and its globs expanded as a shell would (:func:`shell_words`); any
    program a shell would find runs: a file here, a path, a name on PATH (``java -cp
    build:lib/* Main``). It runs in the folder of its script (the last argument that is a
    file), else of its program when given by path (``./run.sh``), else the current folder;
    the folders its arguments name outside that folder (a classpath's) are readable in the
    sandbox (:func:`named_folders`). Names are made unique with ``-2``, ``-3``... Raises
    ConfigError, as a config's check does, for a command that cannot run (a script without
    its interpreter, an interpreter or program not installed), one line with a command that
    would work.
    """
    person = text.strip()
    name, _, rest = text.partition("=") if "=" in (text.split() or [""])[0] else ("", "", text)
    rest = rest.strip()
    if person == HUMAN or person.startswith(HUMAN_PREFIX):
        name = person.removeprefix(HUMAN_PREFIX).strip() if person != HUMAN else HUMAN
        if not is_name(name):
            raise ConfigError(f"bot {text!r}: a person's seat is 'you' or 'human:NAME', NAME {NAME_RULE}, e.g. human:ann")
        entry = BotEntry(name=name, human=True)
    elif rest in SAMPLE_BOTS:
        parts = SAMPLE_BOTS[rest]
        command = tuple(part if part in PROGRAMS or part.startswith("-") else str(SAMPLE_DIR / part) for part in parts)
        entry = BotEntry(name=name or rest, command=command, directory=Path(command[-1]).parent)
    elif _ADDRESS.match(rest):
        entry = BotEntry(name=name or rest, address=rest)
    else:
        written = tuple(shell_words(rest, Path.cwd()))
        command = resolve_command(written)
        script = next((Path(part) for part in reversed(command[1:]) if Path(part).is_file()), None)
        if script is not None:
            directory = script.resolve().parent
        elif "/" in command[0] and Path(command[0]).is_file():
            directory = Path(command[0]).resolve().parent
        else:
            directory = Path.cwd()
        spec = BotSpec(name or _name_of(written, script), command, None, directory)
        check_bot_files("command line", f"bot {text!r}", spec, written, dir_written=False, example=_shell_example)
        entry = BotEntry(spec.name, command, None, directory, named_folders(command[1:], directory))
    unique = entry.name
    number = 2
    while unique in taken:
        unique = f"{entry.name}-{number}"
        number += 1
    taken.add(unique)
    return replace(entry, name=unique)


_MAGIC = re.compile(r"[*?[]")


def shell_words(text: str, cwd: Path) -> list[str]:
    """``text`` split into words as a POSIX shell does, each unquoted word with a glob
    (``*``, ``?``, ``[``) that matches files in ``cwd`` replaced by its matches, sorted (as
    bash does; a glob that matches nothing stays as written, e.g. the classpath
    ``build:lib/*``, which Java expands itself). Raises ConfigError for unbalanced quotes."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ConfigError(f"bot {text!r}: {error} (quote it as a shell would)") from None
    try:
        typed = shlex.split(text, posix=False)  # keeps the quotes: a quoted glob is not expanded
    except ValueError:
        typed = []
    if len(typed) != len(words):
        return words
    expanded: list[str] = []
    for word, as_typed in zip(words, typed):
        if _MAGIC.search(word) and not any(quote in as_typed for quote in "'\"\\"):
            expanded += sorted(glob.glob(word, root_dir=cwd)) or [word]
        else:
            expanded.append(word)
    return expanded


def named_folders(arguments: Sequence[str], directory: Path) -> tuple[str, ...]:
    """The existing folders outside ``directory`` that ``arguments`` name, alone, as an
    option's value (``--data=DIR``) or in a path list (``-cp /opt/lib/*:/home/me/build``:
    a glob's folder): the sandbox lets the bot read them."""
    found: dict[str, None] = {}
    for argument in arguments:
        value = argument.split("=", 1)[1] if argument.startswith("-") and "=" in argument else argument
        for part in value.split(os.pathsep):
            if not part or not os.path.isabs(part):
                continue
            path = Path(part)
            while _MAGIC.search(path.name):
                path = path.parent
            folder = path if path.is_dir() else path.parent
            if folder.is_dir() and directory != folder and directory not in folder.parents:
                found[str(folder)] = None
    return tuple(found)


def _name_of(words: Sequence[str], script: Path | None) -> str:
    """A bot's name from its command: its script's stem, else its last word that is not an
    option (a Java main class), else its program's."""
    if script is not None:
        return script.stem
    plain = [word for word in words[1:] if not word.startswith("-") and os.pathsep not in word and "/" not in word]
    return plain[-1] if plain else Path(words[0]).stem


def _shell_example(command: Sequence[str]) -> str:
    """A suggested command as it is typed on the command line: ``"python bot.py"``."""
    return f'"{shlex.join(command)}"'


def parse_bots(texts: Sequence[str]) -> tuple[BotEntry, ...]:
    taken: set[str] = set()
    return tuple(parse_bot(text, taken) for text in texts)
