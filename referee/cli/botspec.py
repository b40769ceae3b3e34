"""Bots named on the command line: a sample bot's name, an address, or a command."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from referee.config import resolve_command
from referee.errors import ConfigError
from referee.league.pool import BotEntry

REPO = Path(__file__).resolve().parents[2]
SAMPLE_DIR = REPO / "sample_bots"
SAMPLE_BOTS: dict[str, tuple[str, ...]] = {
    "random": ("python", "python/random_bot.py"),
    "heuristic": ("python", "python/heuristic_bot.py"),
    "node": ("node", "node/bot.js"),
    "cpp": ("cpp/build/kwhist_cpp_bot",),
    "go": ("go/build/kwhist_go_bot",),
}
# Host paths a sample bot reads besides its own folder (bound read-only in the sandbox):
# the Node bot loads protos/knockout_whist/v1/bot.proto at run time.
SAMPLE_RO_PATHS: dict[str, tuple[str, ...]] = {"node": (str(REPO / "protos"),)}
_ADDRESS = re.compile(r"^(unix:.+|[\w.\-]+:\d+|\[[0-9a-fA-F:]+\]:\d+)$")


def parse_bot(text: str, taken: set[str]) -> BotEntry:
    """``heuristic`` | ``NAME=COMMAND`` | ``python mybot.py`` | ``127.0.0.1:50051`` | ``unix:/path``.

    Names are made unique with ``-2``, ``-3``... Raises ConfigError for an unknown sample
    name that is not a file either.
    """
    name, _, rest = text.partition("=") if "=" in text.split()[0] else ("", "", text)
    rest = rest.strip()
    if rest in SAMPLE_BOTS:
        parts = SAMPLE_BOTS[rest]
        command = tuple(part if part in ("python", "node") else str(SAMPLE_DIR / part) for part in parts)
        entry = BotEntry(
            name=name or rest, command=command, directory=Path(command[-1]).parent, ro_paths=SAMPLE_RO_PATHS.get(rest, ())
        )
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
        ro_paths = next(
            (SAMPLE_RO_PATHS.get(sample, ()) for sample, parts in SAMPLE_BOTS.items() if script.resolve() == SAMPLE_DIR / parts[-1]),
            (),
        )
        entry = BotEntry(name=name or script.stem, command=command, directory=script.resolve().parent, ro_paths=ro_paths)
    unique = entry.name
    number = 2
    while unique in taken:
        unique = f"{entry.name}-{number}"
        number += 1
    taken.add(unique)
    return BotEntry(unique, entry.command, entry.address, entry.directory, entry.ro_paths)


def parse_bots(texts: Sequence[str]) -> tuple[BotEntry, ...]:
    taken: set[str] = set()
    return tuple(parse_bot(text, taken) for text in texts)
