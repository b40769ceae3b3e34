"""Issue 41: verdicts in words. "ahead", "level within 0.1 pts/g" (an equivalence test that
can conclude), or "too close to call in this lesson"; never a number of games above
LESSONS times the games played."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.standings.strength import Unit, fit_strengths
from referee.standings.uncertainty import SEQUENTIAL_MIN_UNITS, Verdict, equivalent, games_to_level, judge
from referee.standings.verdicts import LESSONS, Sequential, pair_verdicts


@pytest.mark.parametrize(
    ("gap", "se", "units", "expected"),
    [
        (0.0, 0.03, 40, Verdict.LEVEL),  # 1.68 * 0.03 = 0.05 < 0.1: level
        (0.04, 0.03, 40, Verdict.LEVEL),  # 0.04 + 0.05 < 0.1
        (0.06, 0.03, 40, Verdict.OPEN),  # 0.06 + 0.05 > 0.1, and not ahead by the margin yet
        (0.0, 0.11, 30, Verdict.OPEN),  # a lesson's spread: neither
        (0.0, 0.03, SEQUENTIAL_MIN_UNITS - 1, Verdict.OPEN),  # too few units
        (0.3, 0.05, 30, Verdict.AHEAD),
        (0.0, None, 30, Verdict.OPEN),
    ],
)
def test_the_verdict_table(gap: float, se: float | None, units: int, expected: Verdict) -> None:
    assert judge(gap, se, units) is expected


def test_the_equivalence_test_is_bonferroni_over_the_pairs_asked() -> None:
    assert equivalent(0.02, 0.04, 60, tests=1)
    assert not equivalent(0.02, 0.04, 60, tests=3)  # t at 0.05/3 one-sided: 2.2 * 0.04 + 0.02 > 0.1


def test_games_to_level_shrink_as_the_standard_error_does() -> None:
    more = games_to_level(0.02, 0.06, 30, games=900)
    assert more is not None
    later_se = 0.06 * (900 / (900 + more)) ** 0.5
    assert equivalent(0.02, later_se * 0.999, 30 + 1000)
    assert games_to_level(0.1, 0.06, 30, games=900) is None, "a gap of the margin is never level"


def unit(first: float, second: float) -> Unit:
    """One deal's rotations of two bots: points per game of each (a game of 2: 1 for the winner)."""
    return Unit(("a", "b"), {"a": (first * 2, 2), "b": (second * 2, 2)})


def twins(seed: int, deals: int) -> list[Unit]:
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        wins = sum(rng.random() < 0.5 for _ in range(2))
        out.append(unit(wins / 2, 1 - wins / 2))
    return out


def test_two_equal_bots_reach_level_in_a_league_long_enough() -> None:
    """The issue's lesson never said "level", not even for two bots of one strategy: with the
    two one-sided tests a long enough league says it (and a short one says too close)."""
    early = pair_verdicts(fit_strengths(twins(3, 40)), ["a", "b"], Sequential(rounds=20), games=80)
    assert early.pairs[0].verdict is Verdict.OPEN and "too close to call in this lesson" in early.lines()[0]
    found = []
    for seed in range(20):
        units = twins(seed, 800)
        verdicts = pair_verdicts(fit_strengths(units), ["a", "b"], Sequential(rounds=400), games=1600)
        found.append(verdicts.pairs[0].verdict)
    assert found.count(Verdict.LEVEL) >= 18, found  # each pair's gap se ~0.035: level in nearly every league
    assert Verdict.AHEAD not in found


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=80),
    st.integers(1, 10_000),
    st.booleans(),
)
def test_no_verdict_line_names_more_games_than_the_bound(scores: list[tuple[int, int]], games: int, movement: bool) -> None:
    units = [unit(a / 2, b / 2) for a, b in scores]
    verdicts = pair_verdicts(fit_strengths(units), ["a", "b"], Sequential(rounds=7 if movement else None), games=games)
    for line in verdicts.lines():
        for number in re.findall(r"about ([\d,]+) more games", line):
            assert int(number.replace(",", "")) <= LESSONS * games, line
        assert "undecided" not in line
    pair = verdicts.pairs[0]
    if pair.beyond:
        assert f"would need more than {LESSONS} {'lessons' if movement else 'leagues'}" in pair.text()
    assert pair.to_json()["more_games"] is None or pair.to_json()["more_games"] <= LESSONS * games
