"""Read a league config file, or ``--rule`` options, into validated settings.

``tournaments/<night>.toml`` is parsed with tomllib and validated by the pydantic models
of :mod:`referee.config.schema`; every problem becomes one :class:`ConfigError` line
naming the file, the key path and what is expected.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from referee.config.messages import bot_label, describe, describe_toml
from referee.config.paths import check_bot_files, check_ro_paths
from referee.config.schema import BotModel, FileModel, RulesModel
from referee.config.settings import BotSpec, ClusterSettings, LeagueConfig, LeagueSettings, default_bot_dir
from referee.errors import ConfigError
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.sandbox.settings import SandboxSettings


def load_config(path: Path) -> LeagueConfig:
    """Load and validate ``path`` (a league config, see ``tournaments/demo.toml``).

    Relative paths in it resolve against the current working directory (the repository
    root): ``results`` and ``ro_paths`` are kept as written; a bot's ``dir`` is made
    absolute, and so is every relative path in its ``command`` that exists under the
    current directory (the command runs inside ``dir``; a path that does not exist here is
    left for the bot's directory, e.g. ``dir = "bots/x"``, ``command = "python bot.py"``).
    Raises ConfigError, one line: ``<path>: <key>: expected ..., got ...``, or
    ``<path>: line L, column C: TOML syntax error: ...``.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {describe_toml(error, text)}") from None
    try:
        model = FileModel.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{path}: {describe(error, FileModel, data)}") from None
    return _build(model, path, text)


def _build(model: FileModel, path: Path, text: str) -> LeagueConfig:
    section = model.league
    name = section.name or path.stem
    league = LeagueSettings(
        name=name,
        seed=section.seed,
        table_size=section.table_size,
        deals=section.deals,
        concurrency=section.concurrency,
        results=Path(section.results) if section.results else Path("results") / f"{name}.sqlite",
        format=section.format,
        challengers=tuple(section.challengers),
        games=section.games,
        minutes=section.minutes,
        stop=section.stop,
        confidence=section.confidence,
        separate=section.separate,
        margin=section.margin,
    )
    rules = Rules(**model.rules.model_dump())
    try:
        rules.check_players(league.table_size)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
    time = TimeControl(**model.time.model_dump(), unlimited=model.faults.preset == "debug")
    faults = FaultPolicy(
        preset=model.faults.preset,
        max_faults=1 if model.faults.preset == "strict" else model.faults.max_faults,
        max_restarts=model.faults.max_restarts,
    )
    sandbox = SandboxSettings(**{**model.sandbox.model_dump(), "ro_paths": tuple(model.sandbox.ro_paths)})
    bots = tuple(_bot_spec(bot) for bot in model.bots)
    check_ro_paths(path, "sandbox.ro_paths", sandbox.ro_paths)
    for index, (written_bot, bot) in enumerate(zip(model.bots, bots)):
        label = bot_label(index, {"name": bot.name})
        check_bot_files(path, label, bot, tuple(written_bot.command or ()), dir_written=written_bot.dir is not None)
        check_ro_paths(path, f"{label}: ro_paths", bot.ro_paths)
    written = [bot.model_dump() for bot in model.bots]
    fingerprint = config_fingerprint(league, rules, time, faults, sandbox, written)
    cluster = ClusterSettings(model.cluster.scheduler, model.cluster.bots) if model.cluster else None
    return LeagueConfig(league, rules, time, faults, sandbox, bots, path, text, fingerprint, cluster)


def resolve_command(command: tuple[str, ...]) -> tuple[str, ...]:
    """``command`` with each relative path of a file under the current directory made
    absolute; the program name (unless it has a ``/``), options, the module after ``-m``
    and paths meant for the bot's directory stay as written."""
    resolved = []
    for position, part in enumerate(command):
        path = Path(part)
        keep = (
            (position == 0 and "/" not in part)
            or part.startswith("-")
            or (position > 0 and command[position - 1] == "-m")
            or path.is_absolute()
            or not path.is_file()
        )
        resolved.append(part if keep else str(path.absolute()))
    return tuple(resolved)


def _bot_spec(bot: BotModel) -> BotSpec:
    """The bot with its paths taken from the current directory (see :class:`BotSpec`)."""
    if bot.human:
        return BotSpec(bot.name, (), None, Path("."), human=True, move_ms=bot.move_ms)
    if bot.command is None:
        return BotSpec(bot.name, (), bot.address, Path("."), tuple(bot.ro_paths))
    written = tuple(bot.command)
    directory = Path(bot.dir) if bot.dir else default_bot_dir(written)
    return BotSpec(bot.name, resolve_command(written), None, directory.absolute(), tuple(bot.ro_paths))


def config_fingerprint(
    league: LeagueSettings,
    rules: Rules,
    time: TimeControl,
    faults: FaultPolicy,
    sandbox: SandboxSettings,
    bots: Sequence[dict[str, Any]],
) -> str:
    """sha256 (hex) of the canonical JSON of everything that shapes a league's results.

    ``bots`` are the ``[[bots]]`` tables as written (paths not made absolute, so the
    fingerprint does not depend on where the repository lives). Leaves out
    ``league.concurrency`` and ``league.results`` (they change how fast and where, not
    what), so ``--concurrency`` or moving the results file does not block a resume.
    """
    league_part = {k: v for k, v in asdict(league).items() if k not in ("concurrency", "results")}
    canonical: dict[str, Any] = {
        "league": league_part,
        "rules": asdict(rules),
        "time": asdict(time),
        "faults": asdict(faults),
        "sandbox": asdict(sandbox),
        "bots": list(bots),
    }
    blob = json.dumps(canonical, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _option_value(text: str) -> object:
    """A ``--rule`` value: a TOML value when it parses as one (``5``, ``true``, ``"one"``), else the bare text."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def rules_from_options(options: Sequence[str]) -> Rules:
    """``["dog_life=off", "start_hand_size=5"]`` -> Rules (rules.md §2), validated like ``[rules]``.

    For ``referee play --rule KEY=VALUE``. Raises ConfigError (exit 2), one line naming
    the key: ``--rule dog_life: expected 'round1', 'any_round' or 'off', got "of"``.
    """
    data: dict[str, object] = {}
    for option in options:
        key, sep, value = option.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--rule {option!r}: expected KEY=VALUE, e.g. --rule dog_life=off")
        data[key] = _option_value(value.strip())
    try:
        model = RulesModel.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"--rule {describe(error, RulesModel)}") from None
    return Rules(**model.model_dump())
