"""The fixtures of a league: a pure function of (bots, table size, deals, seed, format,
rounds) (docs/design.md §7).

Round-robin: every combination of ``table_size`` bots is a table. Gauntlet: every
challenger meets every combination of ``table_size - 1`` bots of the field (the bots that
are not challengers; challengers do not meet each other). Each table plays ``deals``
deals, and each deal is replayed once per cyclic rotation of the seats ("duplicate"
deals): every rotation has the same deal seed and the same first dealer (a seat index),
so the same cards land in the same seat while the bots move around. Hence, exactly:
every pair of bots meets equally often (round-robin), and every bot sits in every seat
and is first dealer equally often. The cyclic seating order of a table changes from deal
to deal (:func:`referee.seating.balanced_order`), so that every bot sits directly after
every other bot about equally often (the spread tested in tests/league_data).

Movement (``format = "movement"``, the class-size format): a sampled schedule played in
rounds, see :mod:`referee.movement`.

Table order and each table's base seat order are shuffled deterministically from the
league seed (sha256, independent of the Python version). Fixtures are ordered deal by
deal and rotation by rotation, tables interleaved so that neighbouring fixtures (which
run concurrently) share as few bots as possible. Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from referee.errors import ConfigError
from referee.rules import MAX_PLAYERS, MIN_PLAYERS
from referee.seating import Follows, balanced_order, rebalance

Format = Literal["round_robin", "gauntlet", "movement"]

_LOOKAHEAD = 64  # tables scanned when interleaving: keeps large leagues fast


@dataclass(frozen=True)
class Fixture:
    """One game of the schedule.

    ``index`` is its 0-based position in the schedule; ``table`` the table's bots in base
    seat order; ``deal`` (0-based) the deal at this table; ``rotation`` (0-based) how far
    the base order is turned: ``seats[i] == table[(i + rotation) % len(table)]``;
    ``seed`` the deal seed (a 64-bit int, the same for every rotation of a deal);
    ``first_dealer`` the seat index of the round-1 dealer (rules.md R4, the same for every
    rotation); ``game_id`` counts from 1, e.g. ``"t03-d1-r2"`` = table 3, deal 1, rotation 2.
    ``round`` is the 0-based schedule round (movement format; 0 for the others).
    """

    index: int
    table: tuple[str, ...]
    deal: int
    rotation: int
    seats: tuple[str, ...]
    seed: int
    first_dealer: int
    game_id: str
    round: int = 0


def deal_hash(*parts: object) -> int:
    """A 64-bit integer from sha256 of the parts joined by ':'."""
    text = ":".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _tables(bot_names: Sequence[str], table_size: int, format: Format, challengers: Sequence[str]) -> list[tuple[str, ...]]:
    if format == "round_robin":
        return list(combinations(bot_names, table_size))
    field = [name for name in bot_names if name not in challengers]
    return [(challenger, *others) for challenger in challengers for others in combinations(field, table_size - 1)]


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


def _interleave(tables: list[tuple[str, ...]], window: int) -> list[tuple[str, ...]]:
    """Reorder so each table shares as few bots as possible with the ``window`` before it
    (greedy, first best among the next few tables; stable otherwise)."""
    if window <= 0:
        return tables
    left = list(tables)
    ordered: list[tuple[str, ...]] = []
    while left:
        recent = {name for table in ordered[-window:] for name in table}
        best, best_overlap = 0, len(recent) + 1
        for position, table in enumerate(left[:_LOOKAHEAD]):
            overlap = sum(name in recent for name in table)
            if overlap < best_overlap:
                best, best_overlap = position, overlap
                if overlap == 0:
                    break
        ordered.append(left.pop(best))
    return ordered


def make_fixtures(
    bot_names: Sequence[str],
    table_size: int,
    deals: int,
    seed: int,
    format: Format = "round_robin",
    challengers: Sequence[str] = (),
    rounds: int = 1,
) -> list[Fixture]:
    """Every game of a league, in playing order (see the module doc); for the movement
    format, the games of its first ``rounds`` rounds (:func:`referee.movement.movement_fixtures`).

    Length: tables x deals x table_size. Deterministic for equal arguments; the order of
    ``bot_names`` and ``challengers`` does not matter (they are sorted first). Raises ConfigError for impossible arguments
    (duplicate names, table_size outside 2-7 or above the number of bots, deals < 1,
    bad challengers, rounds < 1).
    """
    _check(bot_names, table_size, deals, format, challengers)
    if format == "movement":
        if rounds < 1:
            raise ConfigError(f"schedule: rounds {rounds}: expected at least 1")
        from referee.movement import movement_fixtures  # it builds on this module's Fixture

        return movement_fixtures(bot_names, table_size, deals, seed, rounds)
    names = sorted(bot_names)
    chosen = sorted(challengers)
    tables = _tables(names, table_size, format, chosen)
    tables.sort(key=lambda table: (deal_hash(seed, "table-order", *table), table))
    based = [tuple(sorted(table, key=lambda name: (deal_hash(seed, "seat", *table, name), name))) for table in tables]
    based = _interleave(based, len(names) // table_size - 1)
    width = max(2, len(str(len(based))))
    follows: Follows = Counter()
    rng = random.Random(deal_hash(seed, "neighbours"))
    flat = rebalance([balanced_order(table, follows, rng) for _ in range(deals) for table in based], follows, rng)
    orders = [flat[deal * len(based) : (deal + 1) * len(based)] for deal in range(deals)]
    fixtures: list[Fixture] = []
    for deal in range(deals):
        for rotation in range(table_size):
            for number, table in enumerate(orders[deal]):
                key = ",".join(sorted(table))
                deal_seed = deal_hash(seed, key, deal)
                fixtures.append(
                    Fixture(
                        index=len(fixtures),
                        table=table,
                        deal=deal,
                        rotation=rotation,
                        seats=table[rotation:] + table[:rotation],
                        seed=deal_seed,
                        first_dealer=deal_hash(seed, key, deal, "dealer") % table_size,
                        game_id=f"t{number + 1:0{width}d}-d{deal + 1}-r{rotation + 1}",
                    )
                )
    return fixtures
