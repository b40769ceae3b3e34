"""How sure the standings are: intervals, rank ranges, separation (docs/design.md §7).

**Independent units.** A deal at a table is replayed in every rotation of its seats; those
games share their cards and their opponents, so they are one unit, not k independent
games. A bot's score in a unit is its mean points per game over the unit's games (the
points of :mod:`referee.standings.table`: 1 per opponent outlasted, 1/2 per tie). Units of
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

**Sequential stop** (:func:`sprt`, :func:`top_verdicts`): a league that looks at its
standings after every round must not simply test at 95% each time (repeated looks inflate
the error). Like fastchess's SPRT for engine matches, each pair of neighbours in the
ranking is a sequential probability ratio test of two hypotheses about their gap
``theta`` in points per game: H0 ``theta = 0`` (level) against H1 ``theta = margin``
(ahead). With the observed gap ``d`` and its standard error ``se = sqrt(se_a^2 + se_b^2)``
(the normal approximation fastchess's GSPRT also uses), the log-likelihood ratio is
``LLR = (margin * d - margin^2 / 2) / se^2``. The test accepts H1 (:attr:`Verdict.AHEAD`)
once ``LLR >= ln((1 - beta) / alpha)``, accepts H0 (:attr:`Verdict.LEVEL`: closer than the
margin, more games would not separate them soon) once ``LLR <= ln(beta / (1 - alpha))``,
and otherwise asks for more games. ``alpha = beta = (1 - confidence) / tests``, ``tests``
the number of pairs decided together (Bonferroni). Neither verdict is given before both
bots have :data:`MIN_UNITS` units: with 2 or 3 units the spread can come out near 0, and
the ratio would then run off to either bound on noise (the B7 simulation stopped 57 of 80
leagues wrongly at round 1 without this). Wald's bounds hold the error rates at
about alpha and beta whenever the test stops, however many looks it takes; the estimated
variance, and the pairs being chosen by the current order, make them approximate: the
simulation benchmark (B7) measures the error rates it really reaches.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
from functools import lru_cache
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum


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
    """The t interval of :mod:`this module <referee.standings.uncertainty>` around ``points_per_game``."""
    units = len(unit_scores)
    if units < 2:
        return Interval(points_per_game, None, None, units)
    import numpy as np  # here: a command that shows no standings never loads it

    sem = float(np.std(np.asarray(unit_scores, dtype=float), ddof=1)) / math.sqrt(units)  # scipy.stats.sem
    half = _t_ppf(0.5 + confidence / 2, units - 1) * sem
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
    return _t_ppf(1 - alpha / 2, df)


def load() -> None:
    """Load the numerical libraries now (numpy, scipy.special: a few tenths of a second of
    CPU), e.g. before a league starts, so that the standings printed on Ctrl-C cost only
    their arithmetic."""
    import numpy  # noqa: F401
    from scipy import special  # noqa: F401


def _t_ppf(probability: float, df: int) -> float:
    """Student's t quantile (``scipy.stats.t.ppf``, which computes it with ``stdtrit``;
    ``scipy.stats`` itself costs ~0.5 s of CPU to import)."""
    from scipy import special

    return float(special.stdtrit(df, probability))


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


class Verdict(Enum):
    """A sequential test's decision about two neighbours in the ranking (see the module doc)."""

    AHEAD = "ahead"  # the first is ahead of the second by about the margin or more (H1)
    LEVEL = "level"  # the gap is below the margin (H0)
    OPEN = "open"  # not decided yet: play more games


MARGIN = 0.1  # points per game: the gap a sequential stop tries to detect (docs/design.md §7)
MIN_UNITS = 10  # units each bot needs before a sequential test decides (see the module doc)


def sprt_bounds(tests: int = 1, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds with ``alpha = beta = (1 - confidence) / tests``."""
    alpha = (1 - confidence) / max(1, tests)
    return math.log(alpha / (1 - alpha)), math.log((1 - alpha) / alpha)


def sprt_llr(first: Interval, second: Interval, margin: float = MARGIN) -> float | None:
    """The log-likelihood ratio of "``first`` is ahead of ``second`` by ``margin`` points per
    game" against "level" (see the module doc); None with fewer than 2 units on either side
    or no spread at all."""
    if first.sem is None or second.sem is None:
        return None
    variance = first.sem**2 + second.sem**2
    if variance <= 0:
        return None
    return (margin * (first.mean - second.mean) - margin**2 / 2) / variance


def sprt(first: Interval, second: Interval, margin: float = MARGIN, tests: int = 1, confidence: float = CONFIDENCE) -> Verdict:
    """The sequential test of ``first`` above ``second`` (see the module doc): OPEN until both
    have :data:`MIN_UNITS` units; raises ValueError for a margin that is not above 0."""
    if margin <= 0:
        raise ValueError(f"margin {margin}: expected above 0 points per game")
    llr = sprt_llr(first, second, margin)
    if llr is None or min(first.units, second.units) < MIN_UNITS:
        return Verdict.OPEN
    lower, upper = sprt_bounds(tests, confidence)
    if llr >= upper:
        return Verdict.AHEAD
    if llr <= lower:
        return Verdict.LEVEL
    return Verdict.OPEN


def top_verdicts(ranked: Sequence[Interval | None], places: int, margin: float = MARGIN, confidence: float = CONFIDENCE) -> list[Verdict]:
    """The verdicts on the neighbours #1/#2, #2/#3, ... #places/#places+1 of a ranking
    (``ranked``: the bots' intervals, best first; None for a bot without games), tested
    together (``tests = `` the number of pairs). A sequential stop ends when none is
    :attr:`Verdict.OPEN`."""
    pairs = min(places, len(ranked) - 1)
    verdicts = []
    for index in range(pairs):
        first, second = ranked[index], ranked[index + 1]
        if first is None or second is None:
            verdicts.append(Verdict.OPEN)
        else:
            verdicts.append(sprt(first, second, margin, pairs, confidence))
    return verdicts
