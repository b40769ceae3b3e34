"""How sure the standings are: intervals, rank ranges, separation (docs/design.md §7).

**Independent units.** A deal at a table is replayed in every rotation of its seats; those
games share their cards and their opponents, so they are one unit, not k independent
games. A bot's score in a unit is its mean points per game over the unit's games (the
points of :mod:`referee.standings`: 1 per opponent outlasted, 1/2 per tie). Units of
different deals or tables are taken as independent.

**Interval.** The bot's points per game ``p`` (its points / its games) with the Student t
interval of a mean over its units: ``p ± t(confidence, m - 1) * s / sqrt(m)``, ``s`` the
standard deviation of its ``m`` unit scores (scipy.stats.t). Undefined (None) with fewer
than 2 units.

**Separation and rank ranges.** Bot a is *separated* above bot b when the gap of their
points per game exceeds ``q * sqrt(se_a^2 + se_b^2)`` (``se`` the standard error, s /
sqrt(m)), with ``q`` the t quantile (df: the smaller unit count - 1) at the two-sided
level ``alpha / P``, ``alpha = 1 - confidence`` and P the number of pairs of bots
(Bonferroni): with bots that are all equal, the chance that the table separates any two of
them is at most alpha. A bot's rank range runs from 1 + the number of bots separated above
it to the number of bots minus those separated below it: ``1–3`` means "could be
anywhere from 1st to 3rd". A bot with fewer than 2 units is separated from none.

:func:`games_to_separate` estimates how many more games would separate #1 from #2 if the
gap and the spread of unit scores stay as they are (standard errors shrink as
``1 / sqrt(units)``).

**Sequential stop** (:func:`look_confidence`): a league that looks at its standings after
every round and stops once the top places are separated must not test at the plain 95%
each time (repeated looks inflate the error). Look j tests at confidence
``1 - alpha * 6 / (pi^2 j^2)``; these alphas sum to ``alpha``, so the chance that the
stop ever declares a false separation stays at most ``alpha`` (a Bonferroni / alpha
spending bound: simpler and more conservative than fastchess's SPRT, which tests one
pair of engines against two hypotheses).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
from functools import lru_cache
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A bot's points per game and its interval (``low``/``high`` None with fewer than 2
    units); ``units`` is the number of independent units behind it, ``sem`` the standard
    error of the mean (None with fewer than 2 units)."""

    mean: float
    low: float | None
    high: float | None
    units: int
    sem: float | None = None


def interval(points_per_game: float, unit_scores: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The t interval of :mod:`this module <referee.uncertainty>` around ``points_per_game``."""
    units = len(unit_scores)
    if units < 2:
        return Interval(points_per_game, None, None, units)
    sem = float(stats.sem(unit_scores))
    half = float(stats.t.ppf(0.5 + confidence / 2, units - 1)) * sem
    return Interval(points_per_game, points_per_game - half, points_per_game + half, units, sem)


def pairs_of(bots: int) -> int:
    """The number of pairs among ``bots`` bots (at least 1)."""
    return max(1, bots * (bots - 1) // 2)


def _threshold(first: Interval, second: Interval, pairs: int, confidence: float) -> float | None:
    """The gap that separates the two at ``confidence`` over ``pairs`` comparisons."""
    if first.sem is None or second.sem is None:
        return None
    return _quantile((1 - confidence) / pairs, min(first.units, second.units) - 1) * math.hypot(first.sem, second.sem)


@lru_cache(maxsize=4096)
def _quantile(alpha: float, df: int) -> float:
    """The two-sided t quantile at level ``alpha`` with ``df`` degrees of freedom."""
    return float(stats.t.ppf(1 - alpha / 2, df))


def separated(first: Interval, second: Interval, pairs: int, confidence: float = CONFIDENCE) -> bool:
    """True when ``first`` is separated above ``second`` (see the module doc)."""
    threshold = _threshold(first, second, pairs, confidence)
    return threshold is not None and first.mean - second.mean > threshold


def rank_ranges(intervals: Mapping[str, Interval | None], confidence: float = CONFIDENCE) -> dict[str, tuple[int, int]]:
    """``{bot: (best rank, worst rank)}`` over the bots given (see the module doc). A bot
    mapped to None has no games: it ranks below every bot with games, the bots without
    games sharing the last places."""
    played = {bot: value for bot, value in intervals.items() if value is not None}
    idle = [bot for bot, value in intervals.items() if value is None]
    pairs = pairs_of(len(played))
    ranges: dict[str, tuple[int, int]] = {}
    for bot, mine in played.items():
        better = sum(separated(other, mine, pairs, confidence) for name, other in played.items() if name != bot)
        worse = sum(separated(mine, other, pairs, confidence) for name, other in played.items() if name != bot)
        ranges[bot] = (1 + better, len(played) - worse)
    for bot in idle:
        ranges[bot] = (len(played) + 1, len(intervals))
    return ranges


def games_to_separate(first: Interval, second: Interval, games: int, pairs: int, confidence: float = CONFIDENCE) -> int | None:
    """About how many more games (of the whole league, ``games`` so far) would separate
    ``first`` and ``second``: 0 when they are separated already, None when it cannot be
    estimated (fewer than 2 units, or equal means)."""
    if separated(first, second, pairs, confidence) or separated(second, first, pairs, confidence):
        return 0
    threshold = _threshold(first, second, pairs, confidence)
    gap = abs(first.mean - second.mean)
    if threshold is None or gap <= 1e-12:
        return None
    factor = (threshold / gap) ** 2
    return max(1, math.ceil(games * (factor - 1)))


def look_confidence(look: int, confidence: float = CONFIDENCE) -> float:
    """The confidence of look ``look`` (1-based) of a sequential stop (see the module doc)."""
    if look < 1:
        raise ValueError(f"look {look}: expected 1 or more")
    return 1 - (1 - confidence) * 6 / (math.pi**2 * look**2)


def top_separated(intervals: Mapping[str, Interval | None], places: int, confidence: float = CONFIDENCE) -> bool:
    """True when the top ``places`` places are decided: for each rank 1..places some bot's
    rank range is that rank alone."""
    ranges = set(rank_ranges(intervals, confidence).values())
    return all((rank, rank) in ranges for rank in range(1, min(places, len(intervals) - 1) + 1))
