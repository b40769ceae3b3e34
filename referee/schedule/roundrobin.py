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
to deal (:func:`referee.schedule.seating.balanced_order`), so that every bot sits directly after
every other bot about equally often (the spread tested in tests/league_data).

Movement (``format = "movement"``, the class-size format): a sampled schedule played in
rounds, see :mod:`referee.schedule.movement`.

Table order and each table's base seat order are shuffled deterministically from the
league seed (sha256, independent of the Python version). Fixtures are ordered deal by
deal, table by table, each table's rotations together: a deal is finished soon after it
starts (its hands are held back until then, docs/design.md §6), and its rotations often
run at the same time, each on a bot process of its own. Tables are interleaved so that
neighbouring tables share as few bots as possible. Pure: no I/O, no clock.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from referee.schedule.fixture import Fixture, Format, deal_hash
from referee.schedule.seating import Follows, balanced_order, rebalance

_LOOKAHEAD = 64  # tables scanned when interleaving: keeps large leagues fast


def _tables(bot_names: Sequence[str], table_size: int, format: Format, challengers: Sequence[str]) -> list[tuple[str, ...]]:
    if format == "round_robin":
        return list(combinations(bot_names, table_size))
    field = [name for name in bot_names if name not in challengers]
    return [(challenger, *others) for challenger in challengers for others in combinations(field, table_size - 1)]


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


def round_robin_fixtures(
    bot_names: Sequence[str], table_size: int, deals: int, seed: int, format: Format, challengers: Sequence[str]
) -> list[Fixture]:
    """The games of a round-robin or gauntlet league, in playing order (see the module doc).

    The arguments are checked by :func:`referee.schedule.make.make_fixtures`. Length:
    tables x deals x table_size; deterministic for equal arguments (names are sorted first).
    """
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
        for number, table in enumerate(orders[deal]):
            for rotation in range(table_size):
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
