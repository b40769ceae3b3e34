"""The sequential stop's test (referee.standings.uncertainty.sprt): table-driven verdicts, the
shape of the log-likelihood ratio, its estimate of the games still needed, and its error
rates on seeded simulated data."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.standings.uncertainty import SEQUENTIAL_MIN_UNITS, Verdict, games_to_decide, sprt, sprt_bounds, sprt_llr


class Bot:
    """A bot's mean and standard error over ``units`` units (independent bots)."""

    def __init__(self, mean: float, sem: float | None, units: int = 50) -> None:
        self.mean, self.sem, self.units = mean, sem, units


def bot(mean: float, sem: float | None, units: int = 50) -> Bot:
    return Bot(mean, sem, units)


def judge(first: Bot, second: Bot, margin: float = 0.1) -> Verdict:
    se = None if first.sem is None or second.sem is None else math.hypot(first.sem, second.sem)
    return sprt(first.mean - second.mean, se, min(first.units, second.units), margin)


def llr(first: Bot, second: Bot, margin: float) -> float | None:
    assert first.sem is not None and second.sem is not None
    return sprt_llr(first.mean - second.mean, math.hypot(first.sem, second.sem), margin)


@pytest.mark.parametrize(
    ("first", "second", "margin", "expected"),
    [
        (bot(1.8, 0.02), bot(1.6, 0.02), 0.1, Verdict.AHEAD),  # gap 0.2, se 0.028: clear
        (bot(1.51, 0.02), bot(1.5, 0.02), 0.1, Verdict.LEVEL),  # gap 0.01 with a small se: level
        (bot(1.6, 0.1), bot(1.5, 0.1), 0.1, Verdict.OPEN),  # gap 0.1 but se 0.14: undecided
        (bot(1.6, 0.1), bot(1.5, None, 1), 0.1, Verdict.OPEN),  # one unit: nothing to test
        (bot(1.8, 0.02, 9), bot(1.6, 0.02), 0.1, Verdict.OPEN),  # clear, but 9 units: too few to trust the spread
        (bot(1.8, 0.001, 2), bot(1.5, 0.001, 2), 0.1, Verdict.OPEN),  # 2 units each with a spread near 0
        (bot(1.6, 0.0), bot(1.5, 0.0), 0.1, Verdict.OPEN),  # no spread at all: no test
        (bot(1.7, 0.05), bot(1.6, 0.05), 0.1, Verdict.OPEN),  # the margin apart, se 0.07: not yet
        (bot(1.7, 0.02), bot(1.6, 0.02), 0.1, Verdict.AHEAD),  # the margin apart, se 0.03: ahead
    ],
)
def test_verdicts(first: Bot, second: Bot, margin: float, expected: Verdict) -> None:
    assert judge(first, second, margin) is expected


def test_wald_bounds_widen_with_the_number_of_tests() -> None:
    lower, upper = sprt_bounds(1, 0.95)
    assert upper == pytest.approx(math.log(0.95 / 0.05)) and lower == pytest.approx(-upper)
    assert sprt_bounds(3, 0.95)[1] > upper


def test_a_margin_must_be_positive() -> None:
    with pytest.raises(ValueError, match="margin"):
        judge(bot(1.6, 0.1), bot(1.5, 0.1), 0.0)


@given(
    gap=st.floats(-1, 1),
    more=st.floats(0.001, 1),
    sem=st.floats(0.01, 1),
    margin=st.floats(0.01, 1),
)
def test_the_llr_grows_with_the_gap_and_is_zero_at_half_the_margin(gap: float, more: float, sem: float, margin: float) -> None:
    low = llr(bot(1.5 + gap, sem), bot(1.5, sem), margin)
    high = llr(bot(1.5 + gap + more, sem), bot(1.5, sem), margin)
    assert low is not None and high is not None and high > low
    middle = llr(bot(1.5 + margin / 2, sem), bot(1.5, sem), margin)
    assert middle == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    ("llr", "units", "games", "expected"),
    [
        (1.0, 20, 100, 195),  # heading for the upper bound ln(19) = 2.94: 2.94 times the games
        (-1.0, 20, 100, 196),  # heading for "level" (a bound of -2.95)
        (2.0, 5, 100, 100),  # the LLR would be there at 147 games, but 10 units need 200
        (0.0, 20, 100, None),  # a gap of exactly half the margin: never
        (None, 20, 100, None),  # no spread: no estimate
    ],
)
def test_games_still_needed(llr: float | None, units: int, games: int, expected: int | None) -> None:
    assert SEQUENTIAL_MIN_UNITS == 10
    bounds = (math.log(0.05 / 0.95) - 0.01, math.log(0.95 / 0.05))
    assert games_to_decide(llr, units, games, bounds) == expected


class Running:
    """A bot's unit scores as running sums: its Interval without keeping the scores."""

    def __init__(self) -> None:
        self.count, self.total, self.squares = 0, 0.0, 0.0

    def add(self, score: float) -> None:
        self.count += 1
        self.total += score
        self.squares += score * score

    def interval(self) -> Bot:
        mean = self.total / self.count
        variance = (self.squares - self.count * mean * mean) / (self.count - 1)
        return Bot(mean, math.sqrt(max(variance, 0.0) / self.count), self.count)


def sequential(gap: float, rng: random.Random, margin: float = 0.25, looks: int = 500, per_look: int = 2) -> Verdict:
    """Two bots with unit scores of standard deviation 1 and true means ``gap`` apart,
    tested after every ``per_look`` units each."""
    first, second = Running(), Running()
    for _ in range(looks):
        for _ in range(per_look):
            first.add(rng.gauss(gap, 1))
            second.add(rng.gauss(0, 1))
        verdict = judge(first.interval(), second.interval(), margin)
        if verdict is not Verdict.OPEN:
            return verdict
    return Verdict.OPEN


def test_error_rates_stay_near_alpha_over_many_looks() -> None:
    """Seeded (deterministic): equal bots are rarely called ahead, bots a margin apart
    rarely called level, whatever the number of looks; a fixed-level test looked at after
    every round would call equal bots apart far more often."""
    rng = random.Random(17)
    level = [sequential(0.0, rng) for _ in range(300)]
    ahead = [sequential(0.25, rng) for _ in range(300)]
    assert level.count(Verdict.AHEAD) / len(level) <= 0.07
    assert ahead.count(Verdict.LEVEL) / len(ahead) <= 0.07
    assert level.count(Verdict.OPEN) + ahead.count(Verdict.OPEN) <= 6  # it nearly always decides
