"""The fixtures of a league, whatever its format: checks the arguments, then asks the
format's own module (docs/design.md §7). Pure: no I/O, no clock."""

from __future__ import annotations

from collections.abc import Sequence

from referee.errors import ConfigError
from referee.game.rules import MAX_PLAYERS, MIN_PLAYERS
from referee.schedule.fixture import Fixture, Format
from referee.schedule.movement import movement_fixtures
from referee.schedule.roundrobin import round_robin_fixtures


def make_fixtures(
    bot_names: Sequence[str],
    table_size: int,
    deals: int,
    seed: int,
    format: Format = "round_robin",
    challengers: Sequence[str] = (),
    rounds: int = 1,
) -> list[Fixture]:
    """Every game of a league, in playing order (:mod:`referee.schedule.roundrobin`); for the movement
    format, the games of its first ``rounds`` rounds (:func:`referee.schedule.movement.movement_fixtures`).

    Length: tables x deals x table_size. Deterministic for equal arguments; the order of
    ``bot_names`` and ``challengers`` does not matter (they are sorted first). Raises ConfigError for impossible arguments
    (duplicate names, table_size outside 2-7 or above the number of bots, deals < 1,
    bad challengers, rounds < 1).
    """
    _check(bot_names, table_size, deals, format, challengers)
    if format == "movement":
        if rounds < 1:
            raise ConfigError(f"schedule: rounds {rounds}: expected at least 1")
        return movement_fixtures(bot_names, table_size, deals, seed, rounds)
    return round_robin_fixtures(bot_names, table_size, deals, seed, format, challengers)


def _check(bot_names: Sequence[str], table_size: int, deals: int, format: str, challengers: Sequence[str]) -> None:
    if len(set(bot_names)) != len(bot_names):
        raise ConfigError(f"schedule: duplicate bot names in {list(bot_names)}")
    if not MIN_PLAYERS <= table_size <= MAX_PLAYERS:
        raise ConfigError(f"schedule: table_size {table_size}: expected {MIN_PLAYERS}-{MAX_PLAYERS} (rules.md R1)")
    if deals < 1:
        raise ConfigError(f"schedule: deals {deals}: expected at least 1")
    if format in ("round_robin", "movement"):
        if challengers:
            raise ConfigError("schedule: challengers are for the gauntlet format only")
        if format == "movement" and table_size > len(bot_names):
            raise ConfigError(f"schedule: {len(bot_names)} bots cannot fill a table of {table_size}")
        if table_size > len(bot_names):
            raise ConfigError(f"schedule: {len(bot_names)} bots cannot fill a table of {table_size}")
    elif format == "gauntlet":
        unknown = [name for name in challengers if name not in bot_names]
        if not challengers or unknown or len(set(challengers)) != len(challengers):
            raise ConfigError(f"schedule: gauntlet challengers {list(challengers)} must be distinct bot names, at least one")
        if len(bot_names) - len(challengers) < table_size - 1:
            raise ConfigError(f"schedule: a gauntlet at tables of {table_size} needs {table_size - 1} bots besides the challengers")
    else:
        raise ConfigError(f"schedule: format {format!r}: expected 'round_robin', 'gauntlet' or 'movement'")
