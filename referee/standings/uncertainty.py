"""How sure the standings are: intervals, simultaneous rank sets, the sequential test
(docs/design.md §7). Pure: no I/O, no clock (the bootstrap's generator has a fixed seed).

Everything here reads a fit of :mod:`referee.standings.strength`: each bot's adjusted
strength ``s`` (points per game against the rest of the field), the covariance of the ``s``
(cluster-robust over the independent units: a deal's rotations at one table), and each
bot's number of units ``m``.

**Too few units.** With fewer than :data:`MIN_UNITS` units a bot has no interval ("—") and
is separated from no bot: with 2 or 3 units the spread of its unit scores can come out 0,
and any test would then claim a difference on noise. Six is the fewest with which even a
bot that won every unit could be told from an equal one at 95% by a sign test
(``2 * (1/2)**6 = 3%``).

**Interval** of a bot's strength: ``s ± t(confidence, m - 1) * se`` (Student's t quantile), cut to
the points a game can give, ``[0, k - 1]``. Pointwise: each interval holds its bot's true
strength with the confidence.

**Rank sets** (:func:`rank_sets`): confidence sets for the ranks of all bots at once, after
Mogstad, Romano, Shaikh and Wilhelm, "Inference for ranks" (2024; the R package csranks). For
every ordered pair (j, k) of bots with enough units, the hypothesis ``s_j <= s_k`` is tested
with ``T = (s_j - s_k) / sd(s_j - s_k)``, the yardstick ``sd`` taken from the model's
covariance with the residual spread pooled over all bots (the same for equally spread
bots, so the tests, and the sets, follow the estimates' order); ``T`` is read as the normal
score of its tail under Student t with the pooled spread's degrees of freedom (about 290
in a lesson of 30 bots and 7 rounds; ``m - 1`` for two bots, a t test). All pairs are tested
together: ``T`` is compared with the ``confidence`` quantile of the maximum over the pairs
still tested of ``(Z_j - Z_k) / sd``, ``Z`` drawn from the normal with the estimates'
cluster-robust covariance (2,000 draws: a Gaussian multiplier bootstrap over the units,
whose draws are exactly these, so bots whose results spread more than others' are allowed
for). Rejected pairs leave the maximum and the quantile is taken again, until no more are
rejected (the step-down of Romano and Wolf). A rejection says "j is stronger than k"; bot
j's rank set is ``[1 + bots established stronger, n - bots established weaker]`` (n the bots
with games). With probability about ``confidence`` no rejection is wrong, so every bot's true
rank lies in its set, all at once. Finally each set is widened, never narrowed, so that the
sets are monotone in the estimate (a bot ranked above another never has a later best or
worst rank) and exactly tied bots share one set.

**One bot's pairs** (:func:`marginal_separations`): the same step-down test over the pairs
of one bot only, a claim for that bot at ``confidence`` (its marginal rank set, csranks'
``marginal``): each student's own line (:mod:`referee.standings.ownline`).

**Sequential test** (:func:`sprt`): a league that looks at its standings after every round
must not simply test at 95% each time (repeated looks inflate the error). Like fastchess's
SPRT for engine matches, a pair of neighbours in the ranking is a sequential probability
ratio test of two hypotheses about their gap ``theta``: H0 ``theta = 0`` (level) against H1
``theta = margin`` (ahead). With the observed gap ``d`` and its standard error ``se`` (the
normal approximation fastchess's GSPRT also uses), ``LLR = (margin * d - margin^2 / 2) /
se^2``. It accepts H1 (:attr:`Verdict.AHEAD`) once ``LLR >= ln((1 - beta) / alpha)``, H0
(:attr:`Verdict.LEVEL`: closer than the margin) once ``LLR <= ln(beta / (1 - alpha))``, and
otherwise asks for more games; ``alpha = beta = (1 - confidence) / tests``, ``tests`` the pairs
decided together (Bonferroni). No verdict before both bots have
:data:`SEQUENTIAL_MIN_UNITS` units (the B7 simulation stopped 57 of 80 leagues wrongly at
round 1 without it). Wald's bounds hold the error rates near alpha and beta however many
looks the test takes; the estimated variance, and the pairs being chosen by the current
order, make them approximate: B7 measures the rates reached.

**Level within the margin** (:func:`equivalent`): the SPRT accepts "level" only for a gap
well below half the margin with a standard error below about a third of it; neighbours in
the ranking never have a gap below 0, so in a lesson it never does. The two one-sided tests
of Schuirmann (1987) conclude "level" once the gap's ``1 - 2 alpha`` interval lies inside
``(-margin, margin)``, which a long enough league reaches; :func:`judge` gives a pair's
verdict from both, and :func:`games_to_level` the games they would need.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import NDArray
from scipy import special

from referee.standings.strength import Strengths

CONFIDENCE = 0.95
MIN_UNITS = 6  # units a bot needs for an interval and a place in the rank tests (module doc)
DRAWS = 2000  # normal draws for the max-|t| quantile
SEED = 29  # the draws' fixed seed: the same records give the same standings
TIE = 9  # decimals: estimates equal to this many are a tie (float noise never separates)


@dataclass(frozen=True)
class Interval:
    """A bot's adjusted strength (points per game, within [0, k - 1]) and its interval:
    ``low``/``high`` and ``se`` are None with fewer than :data:`MIN_UNITS` units."""

    estimate: float
    low: float | None
    high: float | None
    units: int
    se: float | None = None


def estimates(fit: Strengths) -> NDArray[np.float64]:
    """The strengths as shown and ranked: within [0, k - 1], to :data:`TIE` decimals."""
    return np.asarray(np.round(np.clip(fit.estimate, 0.0, fit.top), TIE), dtype=np.float64)


def intervals(fit: Strengths, confidence: float = CONFIDENCE) -> list[Interval]:
    """The interval of every bot of ``fit`` (module doc), in the order of ``fit.bots``.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> won = Unit(("a", "b"), {"a": (1.0, 1), "b": (0.0, 1)})  # one deal's rotations: a outlasted b
    >>> lost = Unit(("a", "b"), {"a": (0.0, 1), "b": (1.0, 1)})
    >>> [(interval.estimate, interval.low, interval.high) for interval in intervals(fit_strengths([won] * 9 + [lost]))]
    [(0.9, 0.673784284, 1.0), (0.1, 0.0, 0.326215716)]
    >>> intervals(fit_strengths([won] * 5))[0]  # fewer than MIN_UNITS units: no interval
    Interval(estimate=1.0, low=None, high=None, units=5, se=None)
    """
    out = []
    shown = estimates(fit)
    for i in range(len(fit.bots)):
        estimate = float(shown[i])
        units = int(fit.units[i])
        if units < MIN_UNITS:
            out.append(Interval(estimate, None, None, units))
            continue
        se = math.sqrt(max(float(fit.cov[i, i]), 0.0))
        half = float(special.stdtrit(units - 1, 0.5 + confidence / 2)) * se
        low, high = (round(_clip(value, fit.top), TIE) for value in (estimate - half, estimate + half))
        out.append(Interval(estimate, low, high, units, se))
    return out


def _clip(value: float, top: float) -> float:
    return min(max(value, 0.0), top)


def ranking(fit: Strengths) -> list[int]:
    """Indexes of ``fit.bots`` by :func:`estimates`, strongest first, then by name."""
    shown = estimates(fit)
    return sorted(range(len(fit.bots)), key=lambda i: (-float(shown[i]), fit.bots[i]))


def load() -> None:
    """Load the numerical libraries now (numpy, scipy.special: a few tenths of a second of
    CPU), e.g. before a league starts, so that the standings printed on Ctrl-C cost only
    their arithmetic. Importing this module loads them; ``scipy.stats``, which costs
    ~0.5 s of CPU more to import, is never used: its t and normal functions are those of
    ``scipy.special`` it calls (``stdtrit``, ``stdtr``, ``ndtri``)."""


def rank_sets(fit: Strengths, confidence: float = CONFIDENCE) -> list[tuple[int, int]]:
    """``(best, worst)`` rank of every bot of ``fit`` (ranks 1..len(fit.bots)), simultaneous
    at ``confidence`` and monotone in the estimate (module doc), in the order of ``fit.bots``.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> won = Unit(("a", "b"), {"a": (1.0, 1), "b": (0.0, 1)})  # one deal's rotations: a outlasted b
    >>> lost = Unit(("a", "b"), {"a": (0.0, 1), "b": (1.0, 1)})
    >>> rank_sets(fit_strengths([won] * 9 + [lost]))  # a first, b second
    [(1, 1), (2, 2)]
    >>> rank_sets(fit_strengths([won] * 7 + [lost] * 3))  # 7 deals to 3 do not tell them apart
    [(1, 2), (1, 2)]
    """
    n = len(fit.bots)
    stronger, weaker = [0] * n, [0] * n
    for above, below in separations(fit, confidence):
        weaker[above] += 1
        stronger[below] += 1
    return _monotone(fit, [1 + count for count in stronger], [n - count for count in weaker])


def separations(fit: Strengths, confidence: float = CONFIDENCE) -> list[tuple[int, int]]:
    """The pairs (stronger, weaker), indexes of ``fit.bots``, that the step-down test
    establishes for all bots at once (module doc)."""
    tested = [i for i in range(len(fit.bots)) if fit.units[i] >= MIN_UNITS]
    pairs = [(a, b) for x, a in enumerate(tested) for b in tested[x + 1 :]]
    return _step_down(fit, pairs, confidence)


def marginal_separations(fit: Strengths, bot: int, confidence: float = CONFIDENCE) -> list[tuple[int, int]]:
    """The pairs (stronger, weaker) of bot ``bot`` (an index of ``fit.bots``) with each other
    bot that the same step-down test establishes when only that bot's pairs are tested
    together: a claim about one bot (its marginal rank set, as csranks' ``marginal``),
    at ``confidence`` for all of that bot's pairs at once. No pair for a bot with too few units.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> won = Unit(("a", "b"), {"a": (1.0, 1), "b": (0.0, 1)})  # one deal's rotations: a outlasted b
    >>> lost = Unit(("a", "b"), {"a": (0.0, 1), "b": (1.0, 1)})
    >>> marginal_separations(fit_strengths([won] * 9 + [lost]), 1)  # b: a is stronger
    [(0, 1)]
    """
    if fit.units[bot] < MIN_UNITS:
        return []
    pairs = [(bot, other) for other in range(len(fit.bots)) if other != bot and fit.units[other] >= MIN_UNITS]
    return _step_down(fit, pairs, confidence)


def _step_down(fit: Strengths, pairs: Sequence[tuple[int, int]], confidence: float) -> list[tuple[int, int]]:
    """The pairs of ``pairs`` (indexes of ``fit.bots``) the step-down max-|T| test rejects
    at ``confidence`` (module doc), each as (stronger, weaker)."""
    if not pairs:
        return []
    estimate = estimates(fit)
    first, second = (np.array(side, dtype=np.int64) for side in zip(*pairs, strict=True))
    gap = estimate[first] - estimate[second]
    scale = _pair_scale(fit.pooled, first, second)
    score = _normal_scores(gap, scale, max(1, fit.df))
    spread = _draw_gaps(fit.cov, first, second, scale)
    up = np.ones(len(gap), dtype=bool)  # "first <= second" still tested (rejected: first is stronger)
    down = np.ones(len(gap), dtype=bool)  # "second <= first" still tested
    while up.any() or down.any():
        largest = np.maximum(
            spread[:, up].max(axis=1) if up.any() else -np.inf,
            (-spread[:, down]).max(axis=1) if down.any() else -np.inf,
        )
        critical = float(np.quantile(largest, confidence))
        new_up, new_down = up & (score > critical), down & (-score > critical)
        if not new_up.any() and not new_down.any():
            break
        up &= ~new_up
        down &= ~new_down
    out = [(int(a), int(b)) for a, b in zip(first[~up], second[~up], strict=True)]
    return out + [(int(b), int(a)) for a, b in zip(first[~down], second[~down], strict=True)]


def _normal_scores(gap: NDArray[np.float64], scale: NDArray[np.float64], df: int) -> NDArray[np.float64]:
    """Each ``T = gap / scale`` as the normal score of the same tail under Student t(df) (the
    yardstick is estimated); a gap with no spread at all is infinitely far (a sign test's
    case: every unit one way), no gap is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(scale > 0, gap / np.where(scale > 0, scale, 1.0), np.where(gap == 0, 0.0, np.sign(gap) * np.inf))
    tail = special.stdtr(df, -np.abs(t))  # scipy.stats.t.sf(|t|, df)
    return np.asarray(np.sign(t) * -special.ndtri(tail), dtype=np.float64)  # scipy.stats.norm.isf


def _pair_scale(cov: NDArray[np.float64], first: NDArray[np.int64], second: NDArray[np.int64]) -> NDArray[np.float64]:
    """The standard deviation of each gap ``first - second`` under ``cov``."""
    return np.sqrt(np.maximum(cov[first, first] + cov[second, second] - 2 * cov[first, second], 0.0))


def _draw_gaps(cov: NDArray[np.float64], first: NDArray[np.int64], second: NDArray[np.int64], se: NDArray[np.float64]) -> NDArray[np.float32]:
    """(DRAWS, pairs): ``(Z_first - Z_second) / se`` for Z drawn from N(0, cov) (0 where se is 0)."""
    values, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    draws = np.random.default_rng(SEED).standard_normal((DRAWS, len(values))) @ root.T
    scale = np.where(se > 0, 1 / np.where(se > 0, se, 1.0), 0.0)
    return ((draws[:, first] - draws[:, second]) * scale).astype(np.float32)


def _monotone(fit: Strengths, best: list[int], worst: list[int]) -> list[tuple[int, int]]:
    """The sets widened to be monotone along :func:`ranking`, tied bots sharing one set."""
    shown = estimates(fit)
    groups: list[list[int]] = []
    for i in ranking(fit):
        if groups and shown[groups[-1][0]] == shown[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    group_best = [min(best[i] for i in group) for group in groups]
    group_worst = [max(worst[i] for i in group) for group in groups]
    for g in range(len(groups) - 2, -1, -1):
        group_best[g] = min(group_best[g], group_best[g + 1])
    for g in range(1, len(groups)):
        group_worst[g] = max(group_worst[g], group_worst[g - 1])
    out = [(0, 0)] * len(fit.bots)
    for g, group in enumerate(groups):
        for i in group:
            out[i] = (group_best[g], group_worst[g])
    return out


def pair_gap(fit: Strengths, first: int, second: int) -> tuple[float, float]:
    """(gap, standard error of the gap) of the estimates of bots ``first`` and ``second``."""
    shown = estimates(fit)
    gap = float(shown[first] - shown[second])
    var = float(fit.cov[first, first] + fit.cov[second, second] - 2 * fit.cov[first, second])
    return gap, math.sqrt(max(var, 0.0))


class Verdict(Enum):
    """A verdict on two neighbours in the ranking (module doc)."""

    AHEAD = "ahead"  # the first is ahead of the second by about the margin or more (the SPRT's H1)
    LEVEL = "level"  # the gap is within the margin (the SPRT's H0, or the two one-sided tests)
    OPEN = "open"  # not decided yet: play more games


MARGIN = 0.1  # points per game: the gap a sequential stop tries to detect (docs/design.md §7)
SEQUENTIAL_MIN_UNITS = 10  # units each bot needs before a sequential test decides (module doc)


def sprt_bounds(tests: int = 1, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds with ``alpha = beta = (1 - confidence) / tests``.

    >>> [round(bound, 3) for bound in sprt_bounds()]  # ln(0.05 / 0.95), ln(0.95 / 0.05)
    [-2.944, 2.944]
    """
    alpha = (1 - confidence) / max(1, tests)
    return math.log(alpha / (1 - alpha)), math.log((1 - alpha) / alpha)


def sprt_llr(gap: float, se: float | None, margin: float = MARGIN) -> float | None:
    """The log-likelihood ratio of "ahead by ``margin`` points per game" against "level" for
    an observed ``gap`` with standard error ``se`` (module doc); None without a spread."""
    if se is None or se <= 0:
        return None
    return (margin * gap - margin**2 / 2) / se**2


def sprt(gap: float, se: float | None, units: int, margin: float = MARGIN, tests: int = 1, confidence: float = CONFIDENCE) -> Verdict:
    """The sequential test of a pair ``gap`` apart (first minus second, points per game;
    ``units`` the fewer units of the two): OPEN below :data:`SEQUENTIAL_MIN_UNITS` units or
    without a spread. Raises ValueError for a margin that is not above 0.

    >>> sprt(gap=0.3, se=0.05, units=12)  # well beyond the margin of 0.1 points per game
    <Verdict.AHEAD: 'ahead'>
    >>> sprt(gap=0.01, se=0.02, units=12)
    <Verdict.LEVEL: 'level'>
    >>> sprt(gap=0.3, se=0.05, units=4)  # too few units to decide
    <Verdict.OPEN: 'open'>
    """
    if margin <= 0:
        raise ValueError(f"margin {margin}: expected above 0 points per game")
    llr = sprt_llr(gap, se, margin)
    if llr is None or units < SEQUENTIAL_MIN_UNITS:
        return Verdict.OPEN
    lower, upper = sprt_bounds(tests, confidence)
    if llr >= upper:
        return Verdict.AHEAD
    if llr <= lower:
        return Verdict.LEVEL
    return Verdict.OPEN


def equivalent(gap: float, se: float | None, units: int, margin: float = MARGIN, tests: int = 1, confidence: float = CONFIDENCE) -> bool:
    """Whether two bots ``gap`` apart (standard error ``se``; ``units`` the fewer units of
    the two) are level within ``margin`` points per game: the two one-sided tests of
    Schuirmann (1987), "TOST", each at ``alpha = (1 - confidence) / tests``: the gap's
    ``1 - 2 alpha`` interval (Student t, ``units - 1`` degrees of freedom) lies inside
    ``(-margin, margin)``. False below :data:`SEQUENTIAL_MIN_UNITS` units or without a
    standard error.

    >>> equivalent(gap=0.01, se=0.03, units=40)  # 0.01 + 1.68 * 0.03 < 0.1
    True
    >>> equivalent(gap=0.01, se=0.11, units=30)  # a lesson's spread: the interval reaches past 0.1
    False
    """
    if se is None or se < 0 or units < SEQUENTIAL_MIN_UNITS:
        return False
    return abs(gap) + _one_sided(units, tests, confidence) * se < margin


def _one_sided(units: int, tests: int, confidence: float) -> float:
    """Student t's quantile for one side at ``(1 - confidence) / tests``, ``units - 1`` df."""
    alpha = (1 - confidence) / max(1, tests)
    return float(special.stdtrit(max(1, units - 1), 1 - alpha))


def judge(gap: float, se: float | None, units: int, margin: float = MARGIN, tests: int = 1, confidence: float = CONFIDENCE) -> Verdict:
    """The verdict on two neighbours in the ranking (first minus second ``gap``): AHEAD when
    the sequential test (:func:`sprt`) accepts "ahead by the margin", LEVEL when it accepts
    "level" or the two one-sided tests (:func:`equivalent`) conclude, OPEN otherwise.

    >>> judge(gap=0.3, se=0.05, units=12), judge(gap=0.02, se=0.03, units=40), judge(gap=0.05, se=0.1, units=30)
    (<Verdict.AHEAD: 'ahead'>, <Verdict.LEVEL: 'level'>, <Verdict.OPEN: 'open'>)
    """
    verdict = sprt(gap, se, units, margin, tests, confidence)
    if verdict is Verdict.OPEN and equivalent(gap, se, units, margin, tests, confidence):
        return Verdict.LEVEL
    return verdict


def games_to_level(gap: float, se: float | None, units: int, games: int, margin: float = MARGIN, tests: int = 1, confidence: float = CONFIDENCE) -> int | None:
    """About how many more games (of the whole league, ``games`` so far) the two one-sided
    tests need to find the pair level, if the gap stays as it is and its standard error
    shrinks as one over the square root of the games; None when they never would at this
    gap (as far apart as the margin or more) or it cannot be estimated.

    >>> games_to_level(gap=0.0, se=0.08, units=30, games=900)  # (1.7 * 0.08 / 0.1)^2 = 1.85 times the games
    763
    """
    if se is None or se <= 0 or games <= 0 or units <= 0 or abs(gap) >= margin:
        return None
    ratio = _one_sided(units, tests, confidence) * se / (margin - abs(gap))
    needed = max(games * ratio * ratio, games * SEQUENTIAL_MIN_UNITS / units)
    return max(1, math.ceil(needed - games))


def games_to_decide(llr: float | None, units: int, games: int, bounds: tuple[float, float]) -> int | None:
    """About how many more games (of the whole league, ``games`` so far) an open test needs,
    if the gap and the spread stay as they are: the LLR grows in proportion to the games, and
    the fewer units ``units`` must reach :data:`SEQUENTIAL_MIN_UNITS`. None when it cannot be
    estimated (no spread, no games, or a gap of exactly half the margin).

    >>> games_to_decide(sprt_llr(gap=0.1, se=0.05), units=12, games=100, bounds=sprt_bounds())
    48
    """
    if llr is None or games <= 0 or units <= 0 or llr == 0:
        return None
    bound = bounds[1] if llr > 0 else bounds[0]
    needed = max(games * bound / llr, games * SEQUENTIAL_MIN_UNITS / units)
    return max(1, math.ceil(needed - games))

