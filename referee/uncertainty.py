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

**Rank range.** A bot's best possible rank is 1 + the number of bots whose interval lies
wholly above its own; its worst is the number of bots minus those wholly below. Bots whose
intervals overlap are not told apart: ``1–3`` means "could be anywhere from 1st to 3rd".
A bot without an interval (fewer than 2 units) overlaps every other bot with games.

**Separation of two bots.** Their intervals do not overlap. :func:`games_to_separate`
estimates how many more games would make the intervals of #1 and #2 stop overlapping if
the gap and the spread of unit scores stay as they are (half-widths shrink as
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A bot's points per game and its interval (``low``/``high`` None with fewer than 2
    units); ``units`` is the number of independent units behind it."""

    mean: float
    low: float | None
    high: float | None
    units: int

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2


def interval(points_per_game: float, unit_scores: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The t interval of :mod:`this module <referee.uncertainty>` around ``points_per_game``."""
    units = len(unit_scores)
    if units < 2:
        return Interval(points_per_game, None, None, units)
    sem = float(stats.sem(unit_scores))
    if sem == 0.0:
        return Interval(points_per_game, points_per_game, points_per_game, units)
    half = float(stats.t.ppf(0.5 + confidence / 2, units - 1)) * sem
    return Interval(points_per_game, points_per_game - half, points_per_game + half, units)


def above(first: Interval, second: Interval) -> bool:
    """True when ``first`` lies wholly above ``second`` (both defined, no overlap)."""
    return first.low is not None and second.high is not None and first.low > second.high


def rank_ranges(intervals: Mapping[str, Interval | None]) -> dict[str, tuple[int, int]]:
    """``{bot: (best rank, worst rank)}`` over the bots given (see the module doc). A bot
    mapped to None has no games: it ranks below every bot with games, the bots without
    games sharing the last places."""
    played = {bot: value for bot, value in intervals.items() if value is not None}
    idle = [bot for bot, value in intervals.items() if value is None]
    ranges: dict[str, tuple[int, int]] = {}
    for bot, mine in played.items():
        better = sum(above(other, mine) for name, other in played.items() if name != bot)
        worse = sum(above(mine, other) for name, other in played.items() if name != bot)
        ranges[bot] = (1 + better, len(played) - worse)
    for bot in idle:
        ranges[bot] = (len(played) + 1, len(intervals))
    return ranges


def games_to_separate(first: Interval, second: Interval, games: int) -> int | None:
    """About how many more games (of the whole league, ``games`` so far) would make the
    intervals of ``first`` and ``second`` stop overlapping: 0 when they are apart already,
    None when it cannot be estimated (an interval undefined, or equal means)."""
    if above(first, second) or above(second, first):
        return 0
    gap = abs(first.mean - second.mean)
    if first.half_width is None or second.half_width is None or gap <= 1e-12:
        return None
    factor = ((first.half_width + second.half_width) / gap) ** 2
    return max(1, math.ceil(games * (factor - 1)))


def look_confidence(look: int, confidence: float = CONFIDENCE) -> float:
    """The confidence of look ``look`` (1-based) of a sequential stop (see the module doc)."""
    if look < 1:
        raise ValueError(f"look {look}: expected 1 or more")
    return 1 - (1 - confidence) * 6 / (math.pi**2 * look**2)


def top_separated(intervals: Mapping[str, Interval | None], places: int) -> bool:
    """True when the top ``places`` places are decided: for each rank 1..places some bot's
    rank range is that rank alone (its interval lies above every bot ranked below it and
    below every bot ranked above it)."""
    ranges = set(rank_ranges(intervals).values())
    return all((rank, rank) in ranges for rank in range(1, min(places, len(intervals) - 1) + 1))
