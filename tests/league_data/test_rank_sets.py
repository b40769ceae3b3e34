"""Issue 29: the rank sets and intervals as properties (hypothesis), and a Monte Carlo of two
identical bots through the referee's own engine and standings."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.league_data.league_records import game_record

from referee.game.engine import Game
from referee.game.records import GameRecord
from referee.game.rules import Rules
from referee.schedule.movement import movement_rounds
from referee.standings.table import Standings, compute_standings
from referee.standings.uncertainty import MIN_UNITS, Verdict


@dataclasses.dataclass(frozen=True)
class League:
    """Hand-made records: ``deals`` deals, each at a table of ``size`` bots drawn at random and
    played in every rotation; placements from each bot's skill plus noise (ties possible)."""

    records: tuple[GameRecord, ...]
    size: int
    names: tuple[str, ...]


def play_league(seed: int, bots: int, size: int, deals: int, spread: float, mirror: bool = False) -> League:
    rng = random.Random(seed)
    names = tuple(f"b{i}" for i in range(bots))
    skill = {name: rng.gauss(0, spread) for name in names}
    if mirror:
        skill["b1"] = skill["b0"]
    records: list[GameRecord] = []
    for deal in range(deals):
        table = rng.sample(names, size)
        tables = [table]
        if mirror and ("b0" in table or "b1" in table):  # the same deal with b0 and b1 swapped
            tables.append(["b1" if bot == "b0" else "b0" if bot == "b1" else bot for bot in table])
        noise = [[rng.gauss(0, 1) for _ in range(size)] for _ in range(size)]
        for copy, seats_of_deal in enumerate(tables):
            for rotation in range(size):
                seats = seats_of_deal[rotation:] + seats_of_deal[:rotation]
                # the seat's luck in this rotation follows the cards (the seat), not the bot
                score = [round(skill[bot] + noise[rotation][seat], 1) for seat, bot in enumerate(seats)]
                places = [1 + sum(other > mine for other in score) for mine in score]
                number = (deal * 2 + copy) * size + rotation
                record = game_record(f"g{number:05d}", seats, places, fixture=number)
                records.append(dataclasses.replace(record, seed=deal * 2 + copy))
    return League(tuple(records), size, names)


@st.composite
def leagues(draw: st.DrawFn, mirror: bool = False) -> League:
    bots = draw(st.integers(3, 9))
    size = draw(st.integers(2, min(4, bots)))
    deals = draw(st.integers(1, 40))
    spread = draw(st.sampled_from([0.0, 0.3, 1.0, 3.0]))
    return play_league(draw(st.integers(0, 2**32)), bots, size, deals, spread, mirror)


def check_sets(standings: Standings) -> None:
    rows = [row for row in standings.rows if row.games]
    for row in rows:
        best, worst = row.rank_range
        assert 1 <= best <= row.rank <= worst <= len(rows), row  # the set holds the point rank
    for upper, lower in zip(rows, rows[1:]):  # ranked by strength: the sets never go back up
        assert upper.rank_range[0] <= lower.rank_range[0] and upper.rank_range[1] <= lower.rank_range[1], (upper, lower)
        if upper.rank == lower.rank:
            assert upper.rank_range == lower.rank_range  # exact ties share one set


@settings(max_examples=80, deadline=None)
@given(leagues())
def test_rank_sets_are_monotone_and_hold_the_point_rank(league: League) -> None:
    check_sets(compute_standings(league.records))


@settings(max_examples=80, deadline=None)
@given(leagues())
def test_intervals_stay_within_the_points_a_game_gives(league: League) -> None:
    top = league.size - 1
    for row in compute_standings(league.records).rows:
        assert row.strength is not None
        values = [row.strength.estimate, row.strength.low, row.strength.high]
        assert all(0 <= value <= top for value in values if value is not None), row
        if row.strength.units < MIN_UNITS:
            assert row.strength.low is None and row.strength.high is None  # "—": too few units
        else:
            assert row.strength.low is not None and row.strength.high is not None
            assert row.strength.low <= row.strength.estimate <= row.strength.high


@settings(max_examples=60, deadline=None)
@given(leagues(mirror=True))
def test_identical_records_are_never_separated(league: League) -> None:
    """b1's games are b0's with the two swapped: their records are identical."""
    standings = compute_standings(league.records, bots=league.names)
    check_sets(standings)
    first, second = standings.row("b0"), standings.row("b1")
    assert (first.games, first.points) == (second.games, second.points)
    if first.strength is None or second.strength is None:
        assert first.strength is second.strength is None  # neither played
    else:
        assert (first.strength.estimate, first.strength.low, first.strength.high) == (second.strength.estimate, second.strength.low, second.strength.high)
    assert first.rank_range == second.rank_range and first.rank == second.rank


RULES = Rules()


def random_game(seats: tuple[str, ...], seed: int, game_id: str, first_dealer: int, rng: random.Random) -> tuple[int, ...]:
    """The placements of a game in which every seat plays a random legal action."""
    game = Game(len(seats), RULES, seed, game_id=game_id, first_dealer=first_dealer)
    while not game.over:
        seat = game.to_act
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions()))
    assert game.outcome is not None
    return tuple(game.outcome.placements)


def identical_pair(seed: int, units: int) -> Standings:
    """Two bots with the same (random) strategy, ``units`` deals each in both rotations."""
    rng = random.Random(seed)
    rounds = movement_rounds(["ann", "bob"], 2, 1, seed)
    records = []
    for _ in range(units):
        for fixture in next(rounds):
            placements = random_game(fixture.seats, fixture.seed, fixture.game_id, fixture.first_dealer, rng)
            record = game_record(fixture.game_id, fixture.seats, placements, fixture=fixture.index)
            records.append(dataclasses.replace(record, seed=fixture.seed))
    return compute_standings(records)


def separated(standings: Standings) -> bool:
    """The standings claim one of the two is ahead: disjoint rank sets, or a verdict AHEAD."""
    first, second = (row.rank_range for row in standings.rows)
    return first[1] < second[0] or any(pair.verdict is Verdict.AHEAD for pair in standings.verdicts.pairs)


def test_two_identical_bots_with_few_units_are_rarely_separated() -> None:
    """Issue 29: with 2-5 units the old standings called identical bots apart in 13% of
    leagues (a zero spread from 2 units); at most 5% now, and near 5% above the minimum."""
    for units in range(2, 6):
        claims = sum(separated(identical_pair(1000 * units + league, units)) for league in range(250))
        assert claims <= 0.05 * 250, (units, claims)
    for units in (MIN_UNITS, MIN_UNITS + 2, MIN_UNITS + 4):
        claims = sum(separated(identical_pair(1000 * units + league, units)) for league in range(200))
        assert claims <= 0.07 * 200, (units, claims)  # the 95% test's 5%, with room for 200 leagues' noise
