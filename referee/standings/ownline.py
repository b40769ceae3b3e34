"""Each student's own line: which bots the results tell apart from one bot (docs/design.md
§7). Pure.

"Told apart from 17 bots: above 15, below 2; not told apart from 12." The claim is about
one bot: with 95% probability every one of its separations is right, all at once (its
pairs with every other bot tested together by the rank sets' step-down test,
:func:`referee.standings.uncertainty.marginal_separations`; csranks' marginal rank set).
It is a claim for that bot alone: read over the whole table, 1 bot in 20 may have a
line with a wrong separation. The class's groups (:mod:`referee.standings.groups`) make
another claim, about all pairs; the rank sets, a third, about every bot at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.standings.strength import Strengths
from referee.standings.uncertainty import CONFIDENCE, MIN_UNITS, marginal_separations, ranking


@dataclass(frozen=True)
class OwnLine:
    """One bot's separations at ``confidence``: the bots it is found ``above`` (weaker),
    ``below`` (stronger), and ``not_apart`` (the other bots with games), each in ranking
    order; ``tested`` is False for a bot with too few units (told apart from no bot)."""

    bot: str
    above: tuple[str, ...]
    below: tuple[str, ...]
    not_apart: tuple[str, ...]
    confidence: float = CONFIDENCE
    tested: bool = True

    @property
    def places(self) -> tuple[int, int]:
        """The places this bot may hold (1 + bots above it, bots with games − bots below it):
        its marginal rank set."""
        return 1 + len(self.below), 1 + len(self.below) + len(self.not_apart)

    def text(self) -> str:
        """``"told apart from 17 bots: above 15, below 2; not told apart from 12"``.

        >>> OwnLine("ann", above=("bo", "cy"), below=("dee",), not_apart=("eve",)).text()
        'told apart from 3 bots: above 2, below 1; not told apart from 1'
        """
        if not self.tested:
            return f"told apart from no bot yet: too few games ({MIN_UNITS} deals' worth needed)"
        apart = len(self.above) + len(self.below)
        return f"told apart from {apart} bot{'s' if apart != 1 else ''}: above {len(self.above)}, below {len(self.below)}; not told apart from {len(self.not_apart)}"

    def to_json(self) -> dict[str, object]:
        return {
            "bot": self.bot, "confidence": self.confidence, "tested": self.tested, "text": self.text(),
            "above": list(self.above), "below": list(self.below), "not_apart": list(self.not_apart), "places": list(self.places),
        }  # fmt: skip


def own_line(fit: Strengths, bot: str, confidence: float = CONFIDENCE) -> OwnLine:
    """The line of ``bot`` (a bot of ``fit``; ValueError otherwise), module doc.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> def deal(order):  # one deal's rotations at a table of 3: the bots placed in this order
    ...     return Unit(("a", "b", "c"), {bot: (2.0 - place, 1) for place, bot in enumerate(order)})
    >>> fit = fit_strengths([deal("abc")] * 5 + [deal("bac")] * 5 + [deal("abc"), deal("acb")])
    >>> own_line(fit, "c").text()
    'told apart from 2 bots: above 0, below 2; not told apart from 0'
    >>> own_line(fit, "a").below, own_line(fit, "a").above, own_line(fit, "a").not_apart
    ((), ('c',), ('b',))
    """
    index = fit.index(bot)
    order = [fit.bots[i] for i in ranking(fit) if i != index]
    if fit.units[index] < MIN_UNITS:
        return OwnLine(bot, (), (), tuple(order), confidence, tested=False)
    pairs = marginal_separations(fit, index, confidence)
    weaker = {fit.bots[b] for a, b in pairs if a == index}
    stronger = {fit.bots[a] for a, b in pairs if b == index}
    return OwnLine(
        bot,
        tuple(name for name in order if name in weaker),
        tuple(name for name in order if name in stronger),
        tuple(name for name in order if name not in weaker and name not in stronger),
        confidence,
    )
