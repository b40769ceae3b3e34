"""A fingerprint of each bot's code, so that ``referee run --resume`` notices a bot whose
code changed since its games were played (docs/design.md §7).

What is hashed for a bot given by ``command``: every file the command names that exists,
and every file under the bot's ``dir`` (the folder its command runs in), skipping hidden
entries, ``__pycache__``, ``node_modules``, virtual environments (folders holding
``pyvenv.cfg``), folders named ``results`` and the league's own results and logs. At most :data:`MAX_FILES` files are read;
a file over :data:`MAX_BYTES` is hashed by its size and modification time only. A bot
given by ``address`` runs elsewhere and has no fingerprint.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol


class BotFiles(Protocol):
    """What a fingerprint needs of a bot (``referee.league.pool.BotEntry`` has it)."""

    @property
    def name(self) -> str: ...
    @property
    def command(self) -> Sequence[str]: ...
    @property
    def directory(self) -> Path: ...
    @property
    def remote(self) -> bool: ...


MAX_FILES = 2_000
MAX_BYTES = 8 * 1024 * 1024
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "results"})


def code_fingerprints(bots: Iterable[BotFiles], *, exclude: Collection[Path] = ()) -> dict[str, str]:
    """bot name -> sha256 (hex) of its files, for every bot given by command. Paths in
    ``exclude`` (the results file and the run folder) are never read."""
    skip = {path.absolute() for path in exclude}
    return {bot.name: _fingerprint(bot, skip) for bot in bots if not bot.remote}


def _fingerprint(bot: BotFiles, skip: Collection[Path]) -> str:
    digest = hashlib.sha256()
    directory = bot.directory.absolute()
    named = [directory / part for part in bot.command if "/" in part or Path(part).suffix]
    files = sorted({path.absolute() for path in named if path.is_file()} | set(_walk(directory, skip)))
    for path in files[:MAX_FILES]:
        try:
            stat = path.stat()
            digest.update(f"{path}\0{stat.st_size}\0".encode(errors="replace"))
            if stat.st_size <= MAX_BYTES:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            else:
                digest.update(str(stat.st_mtime_ns).encode())
        except OSError:
            digest.update(f"{path}\0unreadable".encode(errors="replace"))
    return digest.hexdigest()


def _walk(directory: Path, skip: Collection[Path]) -> Iterator[Path]:
    found = 0
    for root, dirs, names in os.walk(directory):
        here = Path(root)
        if "pyvenv.cfg" in names or here in skip:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS and here / d not in skip)
        for name in sorted(names):
            path = here / name
            if name.startswith(".") or path in skip or not path.is_file():
                continue
            yield path
            found += 1
            if found >= MAX_FILES:
                return
