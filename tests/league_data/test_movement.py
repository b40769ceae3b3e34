"""The movement (class-size) format: equal games per bot at every round boundary, the
documented spreads of pairs, seats, first dealer and neighbours, determinism, prefixes.

Exhaustive over 3-40 bots at tables of 2-7 (table size <= bots), after each of the first
:data:`ROUNDS` rounds (one seed), over :data:`LONG_ROUNDS` rounds for up to 12 bots, plus
hypothesis over seeds for smaller leagues."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import ConfigError
from referee.schedule.fixture import Fixture
from referee.schedule.make import make_fixtures
from referee.schedule.movement import LONG_NEIGHBOUR_SPREAD, LONG_PAIR_SPREAD, NEIGHBOUR_SPREAD, PAIR_SPREAD, round_shape
from referee.schedule.seating import successor_pairs

ROUNDS = 3
# what seed 2026 reaches, tighter than the bounds for any seed (a guard on the search's quality)
REACHED_PAIRS = {2: 1, 3: 2, 4: 3, 5: 3, 6: 3, 7: 4}
REACHED_NEIGHBOURS = 2
CASES = [(n, k) for n in range(3, 41) for k in range(2, min(7, n) + 1)]
LONG_ROUNDS = 20
LONG_CASES = [(n, k) for n, k in CASES if n <= 12]


def spread(counts: Counter[object], keys: list[object]) -> int:
    values = [counts[key] for key in keys]
    return max(values) - min(values)


def check_rounds(names: list[str], table_size: int, fixtures: list[Fixture], rounds: int, pair_bound: int | None = None, neighbour_bound: int = NEIGHBOUR_SPREAD, deals: int = 1) -> None:
    """Every invariant after each round boundary 1..rounds; spreads (in deals) within the
    bounds (by default those documented for rounds 1-3)."""
    pair_bound = PAIR_SPREAD[table_size] if pair_bound is None else pair_bound
    shape = round_shape(len(names), table_size)
    pair_keys: list[object] = [frozenset(pair) for pair in combinations(names, 2)]
    ordered_keys: list[object] = [(a, b) for a in names for b in names if a != b]
    seat_keys: list[object] = [(bot, seat) for bot in names for seat in range(table_size)]
    games: Counter[object] = Counter()
    seats: Counter[object] = Counter()
    dealers: Counter[object] = Counter()
    pairs: Counter[object] = Counter()
    follows: Counter[object] = Counter()
    by_round: dict[int, list[Fixture]] = {}
    for fixture in fixtures:
        by_round.setdefault(fixture.round, []).append(fixture)
    assert sorted(by_round) == list(range(rounds))
    for number in range(rounds):
        played = by_round[number]
        assert len(played) == shape.games(deals)
        groups: dict[tuple[str, int], list[Fixture]] = {}
        for fixture in played:
            assert len(set(fixture.seats)) == table_size  # no bot twice at one table
            assert fixture.seats == fixture.table[fixture.rotation :] + fixture.table[: fixture.rotation]
            games.update(fixture.seats)
            seats.update((bot, seat) for seat, bot in enumerate(fixture.seats))
            dealers[fixture.seats[fixture.first_dealer]] += 1
            groups.setdefault((fixture.game_id.rsplit("-r", 1)[0], fixture.seed), []).append(fixture)
        for group in groups.values():  # each deal is replayed in every rotation
            assert sorted(fixture.rotation for fixture in group) == list(range(table_size))
            assert len({fixture.first_dealer for fixture in group}) == 1
            pairs.update(frozenset(pair) for pair in combinations(group[0].table, 2))
            follows.update(successor_pairs(group[0].table))
        assert set(games) == set(names) and len(set(games.values())) == 1, (number, games)
        assert len({seats[key] for key in seat_keys}) == 1
        assert set(dealers) == set(names) and len(set(dealers.values())) == 1
        assert spread(pairs, pair_keys) <= pair_bound, (len(names), table_size, number, spread(pairs, pair_keys))
        assert spread(follows, ordered_keys) <= neighbour_bound, (len(names), table_size, number, spread(follows, ordered_keys))
    assert len({fixture.seed for fixture in fixtures}) == len(fixtures) // table_size


def test_every_class_size_and_table_size_after_each_round() -> None:
    for n, k in CASES:
        names = [f"bot{i:02d}" for i in range(n)]
        fixtures = make_fixtures(names, k, 1, 2026, format="movement", rounds=ROUNDS)
        check_rounds(names, k, fixtures, ROUNDS, REACHED_PAIRS[k], REACHED_NEIGHBOURS)


def test_small_classes_over_many_rounds() -> None:
    for n, k in LONG_CASES:
        names = [f"bot{i:02d}" for i in range(n)]
        fixtures = make_fixtures(names, k, 1, 7, format="movement", rounds=LONG_ROUNDS)
        check_rounds(names, k, fixtures, LONG_ROUNDS, LONG_PAIR_SPREAD, LONG_NEIGHBOUR_SPREAD)


def test_the_reached_spreads_are_within_the_bounds_for_any_seed() -> None:
    assert all(REACHED_PAIRS[k] <= PAIR_SPREAD[k] for k in PAIR_SPREAD) and REACHED_NEIGHBOURS <= NEIGHBOUR_SPREAD


def test_tables_of_two_meet_within_one_for_ever() -> None:
    """Tables of 2 follow the circle method (even) or Walecki's cycles (odd): pairs, and so
    neighbours, within 1 after every round, over more than a whole cycle of rounds."""
    for n in range(3, 41):
        names = [f"bot{i:02d}" for i in range(n)]
        fixtures = make_fixtures(names, 2, 1, n, format="movement", rounds=n)
        check_rounds(names, 2, fixtures, n, 1, 1)


def test_one_table_a_sitting_seats_everyone_after_everyone_evenly() -> None:
    """k + 1 bots at tables of k: every round, every bot sits directly after every other
    exactly once (spread 0); k bots at one table of k, k odd: within 1 (Walecki's cycles
    both ways). For 4 or 6 bots at one table 2 is the least (no directed Hamiltonian
    decomposition exists), which the general bound covers."""
    for k in range(3, 8):
        names = [f"bot{i:02d}" for i in range(k + 1)]
        check_rounds(names, k, make_fixtures(names, k, 1, k, format="movement", rounds=12), 12, 0, 0)
        if k % 2:
            names = names[:k]
            check_rounds(names, k, make_fixtures(names, k, 1, k, format="movement", rounds=12), 12, 0, 1)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([case for case in CASES if case[0] <= 16]), st.integers(-(2**63), 2**63), st.integers(1, 2), st.randoms(use_true_random=False))
def test_any_seed_same_seed_same_schedule(case: tuple[int, int], seed: int, deals: int, random: object) -> None:
    n, k = case
    names = [f"b{i}" for i in range(n)]
    fixtures = make_fixtures(names, k, deals, seed, format="movement", rounds=ROUNDS)
    shuffled = list(names)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    assert make_fixtures(shuffled, k, deals, seed, format="movement", rounds=ROUNDS) == fixtures
    assert [fixture.index for fixture in fixtures] == list(range(len(fixtures)))
    assert len({fixture.game_id for fixture in fixtures}) == len(fixtures)
    # in deals: pairs meet `deals` deals a table; neighbours documented within 1 more for deals > 1
    check_rounds(names, k, fixtures, ROUNDS, deals * PAIR_SPREAD[k], NEIGHBOUR_SPREAD + (deals > 1), deals)
    games = Counter(bot for fixture in fixtures for bot in fixture.seats)
    assert len(set(games.values())) == 1 and sum(games.values()) == ROUNDS * round_shape(n, k).games(deals) * k


def test_more_rounds_extend_the_schedule_without_changing_it() -> None:
    names = [f"b{i}" for i in range(11)]
    two = make_fixtures(names, 4, 1, 5, format="movement", rounds=2)
    five = make_fixtures(names, 4, 1, 5, format="movement", rounds=5)
    assert five[: len(two)] == two


@pytest.mark.parametrize(
    ("bots", "size", "sittings", "per_bot", "byes"),
    [(30, 4, (5, 5, 5), 2, 1), (12, 4, (3,), 1, 0), (10, 4, (2, 2, 1), 2, 1), (5, 2, (2, 2, 1), 2, 1), (37, 7, (5, 5, 5, 5, 5, 4, 4, 4), 7, 1)],
)
def test_round_shape(bots: int, size: int, sittings: tuple[int, ...], per_bot: int, byes: int) -> None:
    shape = round_shape(bots, size)
    assert (shape.sittings, shape.tables_per_bot, shape.byes_per_bot) == (sittings, per_bot, byes)
    assert shape.tables * size == bots * per_bot


def test_a_movement_needs_enough_bots_and_a_round() -> None:
    with pytest.raises(ConfigError):
        make_fixtures(["a", "b", "c"], 4, 1, 1, format="movement")
    with pytest.raises(ConfigError):
        make_fixtures(["a", "b", "c"], 2, 1, 1, format="movement", rounds=0)
