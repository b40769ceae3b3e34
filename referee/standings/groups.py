"""Which bots a class can be told play differently: pairwise tests with the false-discovery
rate controlled over all pairs, shown as letters (docs/design.md §7). Pure.

**The claim.** Every pair of bots with at least :data:`~referee.standings.uncertainty.MIN_UNITS`
units is tested for a difference of strength: the gap of the two strengths over its standard
error (from the fit's cluster-robust covariance, :mod:`referee.standings.strength`), read
through Student t with the fewer units of the two less one degrees of freedom, two-sided.
The pairs that pass the step-up procedure of Benjamini and Yekutieli at :data:`FDR` are
*told apart*, the stronger estimate above. The claim: among all the pairs told apart, on
average at most 1 in 20 is not a real difference (or is the wrong way round).

**Why Benjamini–Yekutieli, not Benjamini–Hochberg.** Benjamini–Hochberg's step-up
procedure (1995) holds the rate when the p-values are independent or positively
regression dependent on the true nulls (PRDS; Benjamini and Yekutieli 2001, Theorem 1.2).
The gaps of all pairs share bots: the gap a−b and the gap b−c are negatively correlated,
so the pairs' p-values are not PRDS and no theorem covers Benjamini–Hochberg here (it is
known to hold the rate in simulations of all-pairwise comparisons, Williams, Jones and
Tukey 1999, but that is not a proof for the referee's fit). Benjamini and Yekutieli's
procedure (2001, Theorem 1.3) holds it under any dependence, at the price of dividing the
rate by ``1 + 1/2 + ... + 1/m`` (6.7 for the 435 pairs of 30 bots). In a simulated
900-game lesson it still tells apart some 170 of the 389 pairs of truly different bots
(Benjamini–Hochberg about 230); B7 measures both, and the false-discovery proportion
reached (BENCHMARKS.md). :data:`METHOD` names the procedure in every note.

**Letters** (:func:`letter_display`): the compact letter display of Piepho (2004,
"An algorithm for a letter-based representation of all-pairwise comparisons"):
insert-and-absorb, then a sweep of the letters no pair needs. Two bots share a letter
exactly when they are not told apart; the strongest bot's first letter is ``a``. Bots
with too few units are in no test and get no letters.
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from referee.standings.strength import Strengths
from referee.standings.uncertainty import MIN_UNITS, estimates, ranking

FDR = 0.05  # the false-discovery rate of the groups: at most 1 claim in 20 wrong, on average
METHOD = "Benjamini–Yekutieli"  # the step-up procedure the groups use (module doc)
LETTERS = string.ascii_lowercase + string.ascii_uppercase + "αβγδεζηθικλμνξοπρστυφχψω"
MAX_COLUMNS = 400  # insert-and-absorb gives up (no letters) beyond this many columns


@dataclass(frozen=True)
class Groups:
    """The class's groups: ``apart`` the pairs told apart as (stronger, weaker) bot names,
    ``letters[bot]`` its letters (``""`` for a bot in no test; every bot of the fit is a
    key), at false-discovery rate ``rate`` by ``method``. ``letters`` is empty when the
    pattern needs more letters than :data:`LETTERS` holds."""

    apart: tuple[tuple[str, str], ...]
    letters: dict[str, str]
    rate: float = FDR
    method: str = METHOD

    def told_apart(self, first: str, second: str) -> bool:
        """Whether the two bots are told apart (either way round)."""
        return (first, second) in self.apart or (second, first) in self.apart


def pair_tests(fit: Strengths) -> list[tuple[int, int, float]]:
    """Every pair of bots of ``fit`` with enough units, as (stronger, weaker, two-sided
    p-value) with indexes of ``fit.bots`` (module doc); an exact tie is listed by index.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> won = Unit(("a", "b"), {"a": (1.0, 1), "b": (0.0, 1)})  # one deal's rotations: a outlasted b
    >>> lost = Unit(("a", "b"), {"a": (0.0, 1), "b": (1.0, 1)})
    >>> [(a, b, round(p, 4)) for a, b, p in pair_tests(fit_strengths([won] * 9 + [lost]))]
    [(0, 1, 0.0031)]
    """
    tested = [i for i in range(len(fit.bots)) if fit.units[i] >= MIN_UNITS]
    shown = estimates(fit)
    out = []
    for x, a in enumerate(tested):
        for b in tested[x + 1 :]:
            gap = float(shown[a] - shown[b])
            var = float(fit.cov[a, a] + fit.cov[b, b] - 2 * fit.cov[a, b])
            se = math.sqrt(max(var, 0.0))
            df = int(min(fit.units[a], fit.units[b])) - 1
            if se > 0:
                p = float(2 * special.stdtr(df, -abs(gap) / se))
            else:
                p = 1.0 if gap == 0 else 0.0  # no spread at all: every unit one way (a sign test's case)
            out.append((a, b, p) if gap >= 0 else (b, a, p))
    return out


def benjamini_hochberg(p_values: Sequence[float], rate: float = FDR) -> list[bool]:
    """The step-up procedure of Benjamini and Hochberg (1995): reject the k smallest
    p-values, k the largest with ``p_(k) <= k * rate / m``.

    >>> benjamini_hochberg([0.001, 0.02, 0.03, 0.5], rate=0.05)
    [True, True, True, False]
    >>> benjamini_hochberg([0.03, 0.5], rate=0.05)  # 0.03 > 1 * 0.05 / 2 and 0.5 > 2 * 0.05 / 2
    [False, False]
    """
    m = len(p_values)
    if not m:
        return []
    order = np.argsort(np.asarray(p_values, dtype=np.float64), kind="stable")
    sorted_p = np.asarray(p_values, dtype=np.float64)[order]
    passing = np.nonzero(sorted_p <= rate * np.arange(1, m + 1) / m)[0]
    rejected = np.zeros(m, dtype=bool)
    if len(passing):
        rejected[order[: passing[-1] + 1]] = True
    return [bool(value) for value in rejected]


def benjamini_yekutieli(p_values: Sequence[float], rate: float = FDR) -> list[bool]:
    """The step-up procedure under any dependence (Benjamini and Yekutieli 2001, Theorem
    1.3): :func:`benjamini_hochberg` at ``rate / (1 + 1/2 + ... + 1/m)``.

    >>> benjamini_yekutieli([0.001, 0.02, 0.03, 0.5], rate=0.05)
    [True, False, False, False]
    """
    m = len(p_values)
    harmonic = sum(1 / k for k in range(1, m + 1)) if m else 1.0
    return benjamini_hochberg(p_values, rate / harmonic)


def class_groups(fit: Strengths, rate: float = FDR) -> Groups:
    """The pairs told apart at false-discovery ``rate`` and the letters (module doc).

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> def deal(order):  # one deal's rotations at a table of 3: the bots placed in this order
    ...     return Unit(("a", "b", "c"), {bot: (2.0 - place, 1) for place, bot in enumerate(order)})
    >>> groups = class_groups(fit_strengths([deal("abc")] * 5 + [deal("bac")] * 5 + [deal("abc"), deal("acb")]))
    >>> groups.apart, groups.letters
    ((('a', 'c'), ('b', 'c')), {'a': 'a', 'b': 'a', 'c': 'b'})
    """
    tests = pair_tests(fit)
    passed = benjamini_yekutieli([p for _, _, p in tests], rate)
    apart = [(a, b) for (a, b, _), yes in zip(tests, passed, strict=True) if yes]
    order = ranking(fit)
    tested = [i for i in order if fit.units[i] >= MIN_UNITS]
    columns = letter_display(tested, apart)
    letters = dict.fromkeys(fit.bots, "")
    if columns is not None:
        for i, text in columns.items():
            letters[fit.bots[i]] = text
    else:
        letters = {}
    names = tuple(sorted(((fit.bots[a], fit.bots[b]) for a, b in apart), key=lambda pair: (order.index(fit.bots.index(pair[0])), order.index(fit.bots.index(pair[1])))))
    return Groups(names, letters, rate, METHOD)


def letter_display(order: Sequence[int], apart: Iterable[tuple[int, int]]) -> dict[int, str] | None:
    """Letters for the bots of ``order`` (best first) such that two bots share a letter
    exactly when the pair is not in ``apart`` (Piepho 2004: insert-and-absorb, then sweep);
    the letters run a, b, c, ... by their best bot. None when more columns than
    :data:`MAX_COLUMNS` arise, or more letters than :data:`LETTERS` are needed.

    >>> letter_display([0, 1, 2, 3], [(0, 2), (0, 3), (1, 3)])  # 0 and 1 alike, 1 and 2, 2 and 3
    {0: 'a', 1: 'ab', 2: 'bc', 3: 'c'}
    >>> letter_display([0, 1, 2], [])
    {0: 'a', 1: 'a', 2: 'a'}
    """
    bots = list(order)
    separated = {frozenset(pair) for pair in apart if pair[0] in bots and pair[1] in bots}
    columns: list[frozenset[int]] = [frozenset(bots)] if bots else []
    for pair in sorted(separated, key=lambda pair: sorted(bots.index(i) for i in pair)):
        i, j = sorted(pair)
        split: list[frozenset[int]] = []
        for column in columns:
            if i in column and j in column:
                split += [column - {j}, column - {i}]
            else:
                split.append(column)
        columns = _absorb(split)
        if len(columns) > MAX_COLUMNS:
            return None
    columns = _sweep(columns, separated)
    position = {bot: index for index, bot in enumerate(bots)}
    columns.sort(key=lambda column: sorted(position[bot] for bot in column))
    if len(columns) > len(LETTERS):
        return None
    return {bot: "".join(LETTERS[c] for c, column in enumerate(columns) if bot in column) for bot in bots}


def letters_text(letters: str) -> str:
    """A bot's letters as shown: three or more consecutive letters as a range.

    >>> letters_text("a"), letters_text("ab"), letters_text("bcdefghi"), letters_text("acdeh")
    ('a', 'ab', 'b–i', 'ac–eh')
    """
    out, run = [], ""
    for letter in letters:
        if run and LETTERS.index(letter) == LETTERS.index(run[-1]) + 1:
            run += letter
            continue
        out.append(run)
        run = letter
    out.append(run)
    return "".join(part if len(part) < 3 else f"{part[0]}–{part[-1]}" for part in out)


def _absorb(columns: Sequence[frozenset[int]]) -> list[frozenset[int]]:
    """The columns that are not part of another (duplicates kept once)."""
    unique = list(dict.fromkeys(column for column in columns if column))
    return [column for column in unique if not any(column < other for other in unique)]


def _sweep(columns: list[frozenset[int]], separated: set[frozenset[int]]) -> list[frozenset[int]]:
    """Drop each bot's letter that no pair needs: a bot leaves a column when every other
    bot of the column shares another column with it (Piepho 2004's sweeping)."""
    columns = list(columns)
    for c in range(len(columns)):
        for bot in sorted(columns[c]):
            others = columns[c] - {bot}
            if not any(bot in column for d, column in enumerate(columns) if d != c):
                continue  # its only letter
            if all(any(bot in column and other in column for d, column in enumerate(columns) if d != c) for other in others):
                columns[c] = others
    return _absorb(columns)
