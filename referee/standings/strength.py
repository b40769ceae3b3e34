"""Strength adjusted for table-mates: an additive least-squares model of points (docs/design.md §7). Pure.

**Units.** A deal is replayed in every rotation of its table's seats: those games share
their cards and their bots, so they are one *unit* (:class:`Unit`). A bot's score in a unit
is its points per game there (1 per opponent outlasted, 1/2 per tie; rules.md R21).
Units of different deals or tables are taken as independent.

**Model.** In a unit of ``k`` seats, bot ``i`` scores on average

    y_i = (k - 1)/2 + theta_i - mean of theta_j over its table-mates j,

``(k - 1)/2`` being the points per game of a table of equals. The ``theta`` are fitted by
least squares over every bot's unit scores, weighted by the bot's games in the unit, with
``sum(theta) = 0`` (the pseudo-inverse of the normal equations: where the tables split the
bots into groups that never met, each group is centred on its own).

**Adjusted strength** ``s_i = (k - 1)/2 + theta_i * n / (n - 1)`` (``n`` bots with games):
the points per game bot ``i`` would score against the rest of the field met equally often,
its table-mates' mean theta being ``-theta_i / (n - 1)``. In a balanced round-robin it equals
the points per game; in a movement, where who sat with whom is uneven, it takes out the
strength of the table-mates a bot happened to draw.

**Covariance** of the ``s``: cluster-robust over units (the sandwich with every unit's
residuals one cluster), with the bias reduction of Bell and McCaffrey ("CR2": each unit's
residuals scaled by ``(I - H_uu)^(-1/2)``, ``H_uu`` the unit's block of the hat matrix), so a
bot's variance is that of its unit scores with ``m - 1`` in the denominator, as in a t interval.
Beside it, the covariance the model gives when every bot's scores are equally spread (the
residual variance pooled over all bots, ``sigma^2 (X'WX)^+``): the rank sets use it as a
common yardstick for the gaps (:mod:`referee.standings.uncertainty`).

The fit is a function of the set of units: callers pass them in a canonical order, so the
floating-point sums are the same for any order of the records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

EIGEN_FLOOR = 1e-9  # eigenvalues of I - H_uu below this carry no residual: left out of CR2
NULL_SPACE = 1e-9  # eigenvalues of the normal equations below this (relative) are the sum-zero constraint


@dataclass(frozen=True)
class Unit:
    """One deal's rotations at one table: ``seats`` the table's bots, one per seat;
    ``scores[bot] = (points, games)`` over the unit's games."""

    seats: tuple[str, ...]
    scores: Mapping[str, tuple[float, int]]


@dataclass(frozen=True, eq=False)
class Strengths:
    """The fit: ``bots`` (with games, sorted) index ``estimate`` (adjusted strength, points
    per game; not clipped), ``cov`` (its cluster-robust covariance, (points per game)^2) and
    ``pooled`` (its covariance were every bot's unit scores equally spread: the residual
    variance pooled over all bots, estimated with ``df`` degrees of freedom); ``units[i]`` is
    bot i's number of units; ``top`` = k - 1, the most points a game of the league's table
    size gives."""

    bots: tuple[str, ...]
    estimate: NDArray[np.float64]
    cov: NDArray[np.float64]
    pooled: NDArray[np.float64]
    df: int
    units: NDArray[np.int64]
    top: float

    def index(self, bot: str) -> int:
        """The position of ``bot`` in the arrays; ValueError when it has no games."""
        return self.bots.index(bot)


def fit_strengths(units: Sequence[Unit]) -> Strengths:
    """The adjusted strengths of every bot in ``units`` with their covariance (module doc).

    An empty ``units`` gives an empty fit; units of one seat carry no comparison and are
    skipped.

    >>> fit = fit_strengths([  # a balanced round-robin: the strengths are the points per game
    ...     Unit(("a", "b", "c"), {"a": (2.0, 1), "b": (1.0, 1), "c": (0.0, 1)}),
    ...     Unit(("a", "b", "c"), {"a": (1.0, 1), "b": (2.0, 1), "c": (0.0, 1)}),
    ... ])
    >>> fit.bots, fit.estimate.round(9).tolist(), fit.units.tolist()
    (('a', 'b', 'c'), [1.5, 1.5, 0.0], [2, 2, 2])
    """
    bots = sorted({bot for unit in units for bot, (_, games) in unit.scores.items() if games > 0})
    where = {bot: i for i, bot in enumerate(bots)}
    n = len(bots)
    columns: list[list[int]] = []  # per row: the bot, then its table-mates (one per seat)
    z: list[float] = []
    w: list[float] = []
    per_unit: list[int] = []  # rows of each unit, in order
    sizes: list[int] = []
    for unit in units:
        k = len(unit.seats)
        scored = [(bot, points, games) for bot, (points, games) in sorted(unit.scores.items()) if games > 0]
        if k < 2 or not scored:
            continue
        for bot, points, games in scored:
            mates = [where[mate] for mate in unit.seats]
            mates.remove(where[bot])  # the bot's own seat (a bot holding two seats meets itself once)
            columns.append([where[bot], *mates])
            z.append(points / games - (k - 1) / 2)
            w.append(float(games))
        per_unit.append(len(scored))
        sizes.append(k)
    counts = np.zeros(n, dtype=np.int64)
    for row in columns:
        counts[row[0]] += 1
    top = float(_table_size(sizes) - 1) if sizes else 1.0
    if not columns:
        return Strengths(tuple(bots), np.full(n, top / 2), np.zeros((n, n)), np.zeros((n, n)), 0, counts, top)
    X = np.zeros((len(columns), n))
    for r, row in enumerate(columns):
        X[r, row[0]] += 1.0
        for mate in row[1:]:
            X[r, mate] -= 1.0 / len(row[1:])
    weights = np.array(w)
    M = X.T @ (weights[:, None] * X)
    A = np.asarray(np.linalg.pinv(M, rtol=NULL_SPACE, hermitian=True), dtype=np.float64)
    theta = A @ (X.T @ (weights * np.array(z)))
    root_w = np.sqrt(weights)
    Xw = root_w[:, None] * X  # weighted rows
    rw = root_w * (np.array(z) - X @ theta)  # weighted residuals
    meat = _cr2_meat(Xw, rw, A, per_unit)
    # each unit's residuals sum to 0 (its points are fixed), and n - 1 strengths are fitted
    df = len(rw) - len(per_unit) - (n - 1)
    variance = float(rw @ rw) / max(1, df)
    factor = n / (n - 1) if n > 1 else 1.0
    return Strengths(tuple(bots), top / 2 + factor * theta, factor**2 * (A @ meat @ A), factor**2 * variance * A, max(0, df), counts, top)


def _cr2_meat(Xw: NDArray[np.float64], rw: NDArray[np.float64], A: NDArray[np.float64], per_unit: Sequence[int]) -> NDArray[np.float64]:
    """Sum over units of g g', g = X_u' (I - H_uu)^(-1/2) r_u (the module doc's CR2), computed
    for the units of each row count at once."""
    n = Xw.shape[1]
    meat = np.zeros((n, n))
    starts = np.concatenate([[0], np.cumsum(per_unit)[:-1]]).astype(int)
    sizes = np.asarray(per_unit)
    for size in np.unique(sizes):
        first = starts[sizes == size]
        index = first[:, None] + np.arange(size)[None, :]  # (units, rows)
        Xu, ru = Xw[index], rw[index]  # (units, rows, n), (units, rows)
        H = (Xu @ A) @ Xu.transpose(0, 2, 1)
        values, vectors = np.linalg.eigh(np.eye(size)[None] - H)
        scale = np.where(values > EIGEN_FLOOR, 1 / np.sqrt(np.maximum(values, EIGEN_FLOOR)), 0.0)
        adjusted = vectors @ (scale * (vectors.transpose(0, 2, 1) @ ru[:, :, None])[:, :, 0])[:, :, None]
        scores = (Xu.transpose(0, 2, 1) @ adjusted)[:, :, 0]
        meat += scores.T @ scores
    return meat


def _table_size(sizes: Sequence[int]) -> int:
    """The most common table size (the larger on a tie)."""
    return max(set(sizes), key=lambda size: (sizes.count(size), size))
