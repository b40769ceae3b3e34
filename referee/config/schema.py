"""The pydantic schema of a league config file (``tournaments/<night>.toml``).

Every model forbids unknown keys and takes TOML types strictly (a quoted ``"4"`` is not
an integer). Each field's ``description`` is the expectation a user reads in an error
("expected an integer 2-7"); see :mod:`referee.config.messages`. Checks that span several
keys raise :class:`pydantic_core.PydanticCustomError` of type ``"config"`` whose ``key``
(in the error's context) names the key path relative to the model that raised it.
"""

from __future__ import annotations

import json
import re
import shlex
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from referee.config.messages import ordinal
from referee.game.rules import DogLife, DogPlay, FirstLead, RequiredTricks, TrumpTiebreak, TurnUp
from referee.sandbox.settings import Mode as SandboxMode
from referee.schedule.fixture import Format

Stop = Literal["budget", "separated"]
Preset = Literal["league", "strict", "debug"]

NAME_RULE = "a name of letters, digits, '-', '_', '.' (at most 40, starting with a letter or digit)"
_HOST_PORT = re.compile(r"^(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$")


def problem(key: str, message: str) -> PydanticCustomError:
    """A cross-key error: ``key`` is the key path below the raising model."""
    return PydanticCustomError("config", message, {"key": key})


def is_name(text: str) -> bool:
    """Whether ``text`` is a bot or league name: 1-40 characters, each a letter of any
    script (with its accents), a digit, ``-``, ``_`` or ``.``; the first a letter or digit.
    So ``josé`` and ``Łukasz_2`` are names; ``be ta`` and ``[red]x`` are not."""
    if not 1 <= len(text) <= 40 or unicodedata.category(text[0])[0] not in "LN":
        return False
    return all(char in "-_." or unicodedata.category(char)[0] in "LM" or unicodedata.category(char) == "Nd" for char in text)


def _check_name(value: str | None) -> str | None:
    if value is not None and not is_name(value):
        raise problem("", f"expected {NAME_RULE}, got {json.dumps(value, ensure_ascii=False)}")
    return value


def _int(default: int, low: int, high: int | None = None) -> Any:
    text = f"an integer {low}-{high}" if high is not None else f"an integer >= {low}"
    return Field(default=default, ge=low, le=high, description=text)


class Section(BaseModel):
    """Base of every section: unknown keys are errors, types are strict, values frozen."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class LeagueModel(Section):
    name: str | None = Field(default=None, description=NAME_RULE)
    seed: int = Field(default=0, description="an integer")
    table_size: int = _int(4, 2, 7)
    deals: int = _int(1, 1)
    concurrency: int = _int(4, 1)
    results: str | None = Field(default=None, min_length=1, description="a file path such as \"results/demo.sqlite\"")
    format: Format = "round_robin"
    challengers: list[str] = Field(default_factory=list, description="a list of bot names")
    games: int | None = Field(default=None, ge=1, description="a number of games >= 1")
    minutes: float | None = Field(default=None, gt=0, description="a number of minutes above 0, e.g. 50")
    stop: Stop = "budget"
    confidence: float = Field(default=0.95, ge=0.5, lt=1, description="a confidence from 0.5 to below 1, e.g. 0.95")
    separate: int = _int(1, 1)
    margin: float = Field(default=0.1, gt=0, le=1, description="points per game above 0 and at most 1, e.g. 0.1")

    _name = field_validator("name")(_check_name)


class RulesModel(Section):
    """The variants of rules.md §2; field names and defaults match :class:`referee.game.rules.Rules`."""

    required_tricks: RequiredTricks = "one"
    dog_life: DogLife = "round1"
    dog_play: DogPlay = "choose_trick"
    turn_up: TurnUp = "top"
    trump_tiebreak: TrumpTiebreak = "dealer_left"
    allow_no_trump: bool = Field(default=False, description="true or false")
    first_lead: FirstLead = "dealer_left"
    start_hand_size: int = _int(7, 1, 7)


class TimeModel(Section):
    move_ms: int = _int(1000, 1)
    grace_ms: int = _int(100, 0)
    bank_ms: int = _int(0, 0)
    startup_ms: int = _int(10_000, 0)


class FaultsModel(Section):
    preset: Preset = "league"
    max_faults: int = _int(3, 1, 10)  # docs/design.md §5: a bound, so faults never pay
    max_restarts: int = _int(3, 0)

    @model_validator(mode="after")
    def _strict_forfeits_at_once(self) -> FaultsModel:
        if self.preset == "strict" and "max_faults" in self.model_fields_set and self.max_faults != 1:
            raise problem("max_faults", "the 'strict' preset forfeits on the first fault: remove max_faults or use preset 'league'")
        return self


class SandboxModel(Section):
    mode: SandboxMode = "auto"
    memory_mb: int = _int(512, 16)
    pids: int = _int(64, 1)
    cpus: float = Field(default=1.0, gt=0, le=64, description="a number of CPUs above 0, e.g. 1.0")
    cpu_seconds: int = _int(3600, 1)
    open_files: int = _int(256, 16)
    file_size_mb: int = _int(64, 1)
    tmp_mb: int = _int(16, 1)
    home_mb: int = _int(64, 1)
    output_kb: int = _int(64, 1)
    ro_paths: list[str] = Field(default_factory=list, description="a list of paths")


class ClusterModel(Section):
    """``[cluster]``: play the league's games on a Dask cluster (docs/cluster.md)."""

    scheduler: str = Field(pattern=r"^[a-z]+://\S+$", description="a Dask scheduler address such as \"tcp://host:8786\"")
    bots: Literal["archive", "shared"] = "archive"


class BotModel(Section):
    name: str = Field(description=NAME_RULE)
    command: list[str] | None = Field(
        default=None, min_length=1, description="a list of strings such as [\"python\", \"bot.py\"], or one string"
    )
    address: str | None = Field(default=None, description="an address 'host:port' or 'unix:/path'")
    dir: str | None = Field(default=None, min_length=1, description="the bot's directory, a path")
    ro_paths: list[str] = Field(default_factory=list, description="a list of paths")
    human: bool = Field(default=False, description="true or false")  # a seat a person plays in the browser
    move_ms: int | None = Field(default=None, ge=1, description="a person's time per decision in ms, an integer >= 1")

    _name = field_validator("name")(_check_name)

    @field_validator("command", mode="before")
    @classmethod
    def _split_string(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return shlex.split(value)
            except ValueError as error:
                raise problem("", f"cannot split the command string: {error}") from None
        return value

    @field_validator("address")
    @classmethod
    def _check_address(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.startswith("unix:") and len(value) > len("unix:"):
            return value
        match = _HOST_PORT.match(value)
        if match is None or not 1 <= int(match.group(1)) <= 65535:
            raise problem("", f"expected an address 'host:port' or 'unix:/path', got \"{value}\"")
        return value

    @model_validator(mode="after")
    def _command_or_address(self) -> BotModel:
        if self.human:
            for key in ("command", "address", "dir", "ro_paths"):
                if getattr(self, key):
                    raise problem(key, f"a seat with human = true is played by a person in the browser: it has no '{key}'")
            return self
        if self.move_ms is not None:
            raise problem("move_ms", "move_ms here is a person's clock (human = true); a bot's time is [time] move_ms")
        if self.command is None and self.address is None:
            raise problem("command", "a bot needs 'command' or 'address'")
        if self.command is not None and self.address is not None:
            raise problem("address", "a bot has 'command' or 'address', not both")
        if self.command is not None and any(not part for part in self.command):
            raise problem("command", "an empty string in the command")
        if self.address is not None and self.dir is not None:
            raise problem("dir", "a bot given by 'address' runs elsewhere and has no 'dir'")
        return self


class FileModel(Section):
    """A whole config file: ``[league]`` and ``[[bots]]`` are required."""

    league: LeagueModel = Field(description="a [league] table")
    rules: RulesModel = Field(default=RulesModel(), description="a [rules] table")
    time: TimeModel = Field(default=TimeModel(), description="a [time] table")
    faults: FaultsModel = Field(default=FaultsModel(), description="a [faults] table")
    sandbox: SandboxModel = Field(default=SandboxModel(), description="a [sandbox] table")
    cluster: ClusterModel | None = Field(default=None, description="a [cluster] table")
    bots: list[BotModel] = Field(min_length=2, description="at least 2 [[bots]] tables")

    @model_validator(mode="after")
    def _league_fits_bots(self) -> FileModel:
        seen: dict[str, int] = {}
        for number, bot in enumerate(self.bots):
            if bot.name in seen:
                raise problem(
                    "",
                    f"two [[bots]] tables are named {json.dumps(bot.name, ensure_ascii=False)} "
                    f"(the {ordinal(seen[bot.name] + 1)} and the {ordinal(number + 1)}): give each bot its own name",
                )
            seen[bot.name] = number
        league = self.league
        if league.format == "movement":
            self._check_movement()
        elif league.games is not None or league.minutes is not None or league.stop != "budget":
            key = "games" if league.games is not None else "minutes" if league.minutes is not None else "stop"
            raise problem(f"league.{key}", f"'{key}' is for format = \"movement\" (the class-size format) only")
        if league.format == "round_robin" and league.challengers:
            raise problem("league.challengers", "challengers are for format = \"gauntlet\" only")
        if league.format == "round_robin" and league.table_size > len(self.bots):
            raise problem(
                "league.table_size",
                f"expected at most the number of bots ({len(self.bots)}), got {league.table_size}",
            )
        if league.format == "gauntlet":
            self._check_gauntlet(seen)
        return self

    def _check_movement(self) -> None:
        league = self.league
        if league.challengers:
            raise problem("league.challengers", "challengers are for format = \"gauntlet\" only")
        if league.table_size > len(self.bots):
            raise problem("league.table_size", f"expected at most the number of bots ({len(self.bots)}), got {league.table_size}")
        if league.games is None and league.minutes is None:
            raise problem("league.games", "format = \"movement\" needs a budget: games = N or minutes = M (or both)")

    def _check_gauntlet(self, seen: dict[str, int]) -> None:
        league = self.league
        if not league.challengers:
            raise problem("league.challengers", "a gauntlet needs at least one challenger (a bot name)")
        for number, name in enumerate(league.challengers):
            if name not in seen:
                raise problem(f"league.challengers[{number}]", f"no bot is named '{name}' (known: {', '.join(seen)})")
            if name in league.challengers[:number]:
                raise problem(f"league.challengers[{number}]", f"'{name}' is named twice")
        field = len(self.bots) - len(league.challengers)
        if field < league.table_size - 1:
            raise problem(
                "league.table_size",
                f"a gauntlet at tables of {league.table_size} needs at least {league.table_size - 1} bots "
                f"besides the challengers, got {field}",
            )
