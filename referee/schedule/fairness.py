"""Fairness counts of a schedule: how evenly games, pair meetings, seats, first dealer and
neighbours (who sits directly after whom) fall. The README's table is made by
:func:`fairness_markdown` and checked by a test. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from referee.schedule.fixture import Fixture
from referee.schedule.make import make_fixtures
from referee.schedule.seating import successor_pairs


@dataclass(frozen=True)
class Fairness:
    """``(min, max)`` over bots, pairs, (bot, seat) or ordered pairs, counted in games."""

    games: int
    per_bot: tuple[int, int]
    pairs: tuple[int, int]
    seats: tuple[int, int]
    first_dealer: tuple[int, int]
    neighbours: tuple[int, int]


def _span(counter: Counter[object], keys: Sequence[object]) -> tuple[int, int]:
    values = [counter[key] for key in keys]
    return min(values), max(values)


def fairness(fixtures: Sequence[Fixture], names: Sequence[str], table_size: int) -> Fairness:
    """The counts of ``fixtures`` (every game counted, rotations included)."""
    games: Counter[object] = Counter(bot for fixture in fixtures for bot in fixture.seats)
    pairs: Counter[object] = Counter(frozenset(pair) for fixture in fixtures for pair in combinations(fixture.seats, 2))
    seats: Counter[object] = Counter((bot, seat) for fixture in fixtures for seat, bot in enumerate(fixture.seats))
    dealers: Counter[object] = Counter(fixture.seats[fixture.first_dealer] for fixture in fixtures)
    follows: Counter[object] = Counter(pair for fixture in fixtures for pair in successor_pairs(fixture.seats))
    return Fairness(
        games=len(fixtures),
        per_bot=_span(games, list(names)),
        pairs=_span(pairs, [frozenset(pair) for pair in combinations(names, 2)]),
        seats=_span(seats, [(bot, seat) for bot in names for seat in range(table_size)]),
        first_dealer=_span(dealers, list(names)),
        neighbours=_span(follows, [(a, b) for a in names for b in names if a != b]),
    )


def fairness_markdown(bots: int = 10, table_size: int = 4, seed: int = 2026) -> list[str]:
    """The README table: round-robin (1 deal per table) and a movement of as many games."""
    names = [f"bot{i:02d}" for i in range(bots)]
    robin = make_fixtures(names, table_size, 1, seed)
    per_round = len(make_fixtures(names, table_size, 1, seed, format="movement", rounds=1))
    rounds = max(1, len(robin) // per_round)
    movement = make_fixtures(names, table_size, 1, seed, format="movement", rounds=rounds)
    lines = [
        "| format | games | games per bot | pair meetings | games per seat | first dealer | b directly after a |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, fixtures in (("round_robin, deals = 1", robin), (f"movement, {rounds} rounds", movement)):
        counts = fairness(fixtures, names, table_size)
        spans = [counts.per_bot, counts.pairs, counts.seats, counts.first_dealer, counts.neighbours]
        lines.append(f"| {label} | {counts.games} | " + " | ".join(f"{low}–{high}" if low != high else f"{low}" for low, high in spans) + " |")
    return lines
