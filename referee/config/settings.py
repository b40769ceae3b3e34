"""The validated settings of a league: plain frozen dataclasses (docs/design.md §1, §5-§7).

Built by :func:`referee.config.load_config`; nothing here reads files. Paths in a config
resolve relative to the current working directory (run the referee from the repository
root).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal

from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.sandbox.settings import SandboxSettings
from referee.schedule.fixture import Format


@dataclass(frozen=True)
class LeagueSettings:
    """The ``[league]`` section. ``results`` is the SQLite results file (default
    ``results/<name>.sqlite``); ``challengers`` is empty unless ``format == "gauntlet"``."""

    name: str
    seed: int
    table_size: int  # 2-7, at most the number of bots (rules.md R1)
    deals: int  # deals per table; each replayed with every rotation of the seats
    concurrency: int  # games played at once
    results: Path
    format: Format
    challengers: tuple[str, ...]
    games: int | None = None  # movement budget: at most this many games (whole rounds, at least one)
    minutes: float | None = None  # movement budget: start no round that would end after this many minutes
    stop: Literal["budget", "separated"] = "budget"  # "separated": also stop once the top places are decided (an SPRT)
    confidence: float = 0.95  # of the separation (stop = "separated")
    separate: int = 1  # top places the separated stop must decide
    margin: float = 0.1  # points per game: the gap the separated stop tests for (docs/design.md §7)


@dataclass(frozen=True)
class ClusterSettings:
    """The ``[cluster]`` section (docs/cluster.md): ``scheduler`` the Dask scheduler's
    address; ``bots`` how bots reach the workers: ``"archive"`` (each bot's folder sent
    through Dask) or ``"shared"`` (read at the same path on every worker)."""

    scheduler: str
    bots: Literal["archive", "shared"] = "archive"


@dataclass(frozen=True)
class BotSpec:
    """One ``[[bots]]`` entry: exactly one of ``command`` (a process we start and sandbox)
    and ``address`` (``host:port`` or ``unix:/path``, a bot running elsewhere) is set.

    ``dir`` is the bot's own directory, absolute (``.`` for a remote bot); the command
    runs there, so :func:`referee.config.load_config` has made absolute every relative
    path of ``command`` that it found under the current directory.

    ``human``: a seat a person plays in the browser (neither command nor address), with
    ``move_ms`` their time per decision (None: no limit)."""

    name: str
    command: tuple[str, ...]
    address: str | None
    dir: Path
    ro_paths: tuple[str, ...] = ()
    human: bool = False
    move_ms: int | None = None

    @property
    def remote(self) -> bool:
        """True for a bot given by address: not started, not sandboxed by us."""
        return self.address is not None


def default_bot_dir(command: tuple[str, ...]) -> Path:
    """The directory of the script a command runs: the first argument after the program
    that is not an option and looks like a path (has a ``/`` or a suffix), else the
    program's own directory, else ``.``.

    ``("python", "sample_bots/python/heuristic_bot.py")`` -> ``sample_bots/python``.
    """
    for part in command[1:]:
        if part.startswith("-"):
            continue
        if "/" in part or PurePath(part).suffix:
            return Path(part).parent
    if command and "/" in command[0]:
        return Path(command[0]).parent
    return Path(".")


@dataclass(frozen=True)
class LeagueConfig:
    """A validated league config.

    ``source`` is the file, ``text`` its raw text (stored with the results), and
    ``fingerprint`` the sha256 (hex) of a canonical JSON of everything that shapes the
    results (all of it but ``league.concurrency`` and ``league.results``); ``referee run
    --resume`` refuses a store whose fingerprint differs.
    """

    league: LeagueSettings
    rules: Rules
    time: TimeControl
    faults: FaultPolicy
    sandbox: SandboxSettings  # the [sandbox] section
    bots: tuple[BotSpec, ...]
    source: Path
    text: str
    fingerprint: str
    cluster: ClusterSettings | None = None  # not in the fingerprint: where, not what

    @property
    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    @property
    def remote_bots(self) -> frozenset[str]:
        """Names of the bots given by address."""
        return frozenset(bot.name for bot in self.bots if bot.remote)

    def bot(self, name: str) -> BotSpec:
        """The bot called ``name``; KeyError when there is none."""
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    def time_control(self) -> TimeControl:
        return self.time

    def fault_policy(self) -> FaultPolicy:
        return self.faults
