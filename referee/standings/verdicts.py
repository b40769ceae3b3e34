"""A verdict for every place the league asks to decide (docs/design.md §7). Pure.

The league's ``separate`` places ask about the neighbours #1/#2 ... #separate/#separate+1 of
the ranking. Each pair is the sequential test of :func:`referee.standings.uncertainty.sprt`
(at ``margin`` points per game and ``confidence``, Bonferroni over the pairs asked). A
movement league looks after every round and keeps what each look decided
(:class:`Decision`): a pair decided once stays decided while the same two bots are
neighbours in that order (a "level" pair in either order), as a sequential test stops at
its first crossing. A pair not decided by a kept look gets the test of the standings shown.

One line per pair (:meth:`PairVerdict.text`), then a summary (:func:`summary`):

    #2 quin ahead of #3 pia (decided after 12 rounds)
    #3 pia / #4 bo undecided: about 420 more games
    top 3 not decided after 7 rounds (time budget)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.standings.strength import Strengths
from referee.standings.uncertainty import (
    CONFIDENCE,
    MARGIN,
    Verdict,
    games_to_decide,
    pair_gap,
    sprt,
    sprt_bounds,
    sprt_llr,
)


@dataclass(frozen=True)
class Decision:
    """A look that decided a pair: ``first`` ahead of ``second`` (AHEAD), or the two level
    (LEVEL); ``round`` the rounds played at that look (None outside a movement), ``games``
    the league's games then."""

    first: str
    second: str
    verdict: Verdict
    round: int | None
    games: int

    def when(self) -> str:
        """``"decided after 12 rounds"`` (or ``"… after 840 games"`` without rounds).

        >>> Decision("quin", "pia", Verdict.AHEAD, round=12, games=840).when()
        'decided after 12 rounds'
        """
        if self.round is not None:
            return f"decided after {_rounds(self.round)}"
        return f"decided after {_games(self.games)}"

    def to_json(self) -> dict[str, Any]:
        return {"first": self.first, "second": self.second, "verdict": self.verdict.value, "round": self.round, "games": self.games}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        return cls(str(data["first"]), str(data["second"]), Verdict(data["verdict"]), data.get("round"), int(data.get("games", 0)))


@dataclass(frozen=True)
class Sequential:
    """What a league asks of the verdicts (its ``[league]`` keys ``separate``, ``margin``,
    ``confidence``) and what its looks decided so far; ``rounds`` played (a movement; None
    otherwise) and why it ``stopped`` (e.g. ``"time budget"``; None while it runs)."""

    separate: int = 1
    margin: float = MARGIN
    confidence: float = CONFIDENCE
    decided: tuple[Decision, ...] = ()
    rounds: int | None = None
    stopped: str | None = None

    def kept(self, first: str, second: str) -> Decision | None:
        """The kept decision on ``first`` (ranked above) and ``second``, if it still holds.

        >>> sequential = Sequential(decided=(Decision("quin", "pia", Verdict.AHEAD, round=12, games=840),))
        >>> sequential.kept("quin", "pia").verdict, sequential.kept("pia", "quin")  # pia has passed quin since
        (<Verdict.AHEAD: 'ahead'>, None)
        >>> Sequential.from_text(sequential.to_text()) == sequential
        True
        """
        for decision in self.decided:
            if {decision.first, decision.second} == {first, second}:
                if decision.verdict is Verdict.LEVEL or decision.first == first:
                    return decision
        return None

    def to_text(self) -> str:
        """JSON text (for the results store's ``meta``)."""
        return json.dumps({
            "separate": self.separate, "margin": self.margin, "confidence": self.confidence,
            "decided": [decision.to_json() for decision in self.decided], "rounds": self.rounds, "stopped": self.stopped,
        })  # fmt: skip

    @classmethod
    def from_text(cls, text: str | None) -> Sequential:
        """The settings and decisions of :meth:`to_text`; the defaults for None or bad text."""
        if not text:
            return cls()
        try:
            data = json.loads(text)
            return cls(
                separate=int(data.get("separate", 1)),
                margin=float(data.get("margin", MARGIN)),
                confidence=float(data.get("confidence", CONFIDENCE)),
                decided=tuple(Decision.from_json(item) for item in data.get("decided", ())),
                rounds=data.get("rounds"),
                stopped=data.get("stopped"),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()


@dataclass(frozen=True)
class PairVerdict:
    """The verdict on #``place`` ``first`` and #``place + 1`` ``second``: its test's
    ``llr`` (None without a spread) against ``bounds``, the kept ``decision`` that decided it
    (AHEAD or LEVEL; None while OPEN), and for an OPEN pair about how many ``more_games``
    (None when that cannot be estimated)."""

    place: int
    first: str
    second: str
    verdict: Verdict
    llr: float | None
    bounds: tuple[float, float]
    margin: float
    decision: Decision | None = None
    more_games: int | None = None

    def text(self) -> str:
        """One line: ``"#2 quin ahead of #3 pia (decided after 12 rounds)"``."""
        first, second = f"#{self.place} {self.first}", f"#{self.place + 1} {self.second}"
        when = "" if self.decision is None else f" ({self.decision.when()})"
        if self.verdict is Verdict.AHEAD:
            return f"{first} ahead of {second}{when}"
        if self.verdict is Verdict.LEVEL:
            return f"{first} level with {second}: within {self.margin:g} pts/g{when}"
        if self.more_games is None:
            return f"{first} / {second} undecided: too few games yet to say how many more"
        return f"{first} / {second} undecided: about {self.more_games:,} more games"

    def to_json(self) -> dict[str, Any]:
        return {
            "place": self.place, "first": self.first, "second": self.second, "verdict": self.verdict.value,
            "llr": self.llr, "bounds": list(self.bounds), "margin": self.margin,
            "decided_after_rounds": None if self.decision is None else self.decision.round,
            "decided_after_games": None if self.decision is None else self.decision.games,
            "more_games": self.more_games, "text": self.text(),
        }  # fmt: skip


@dataclass(frozen=True)
class Verdicts:
    """The pair verdicts of the places asked, and the summary line (None without a pair)."""

    pairs: tuple[PairVerdict, ...] = ()
    summary: str | None = None
    sequential: Sequential = field(default_factory=Sequential)

    def lines(self) -> list[str]:
        """The pair lines, then the summary."""
        return [pair.text() for pair in self.pairs] + ([self.summary] if self.summary else [])

    def decisions(self) -> tuple[Decision, ...]:
        """The kept decisions with those of this look added (what a league keeps)."""
        kept = list(self.sequential.decided)
        for pair in self.pairs:
            if pair.decision is not None and pair.decision not in kept:
                kept = [d for d in kept if {d.first, d.second} != {pair.first, pair.second}] + [pair.decision]
        return tuple(kept)


def pair_verdicts(fit: Strengths, ranked: Sequence[str], sequential: Sequential, games: int) -> Verdicts:
    """The verdicts on the neighbours of ``ranked`` (every bot, best first) that
    ``sequential`` asks about, at a look after ``games`` games of the league (module doc). A
    pair with a bot without games is OPEN.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> won = Unit(("a", "b"), {"a": (1.0, 1), "b": (0.0, 1)})  # one deal's rotations: a outlasted b
    >>> lost = Unit(("a", "b"), {"a": (0.0, 1), "b": (1.0, 1)})
    >>> pair_verdicts(fit_strengths([won] * 18 + [lost] * 2), ["a", "b"], Sequential(), games=20).lines()
    ['#1 a ahead of #2 b (decided after 20 games)', '#1 decided']
    >>> pair_verdicts(fit_strengths([won] * 7 + [lost] * 3), ["a", "b"], Sequential(), games=10).lines()
    ['#1 a / #2 b undecided: about 69 more games', '#1 not decided after 10 games']
    """
    tests = min(sequential.separate, len(ranked) - 1)
    bounds = sprt_bounds(tests, sequential.confidence)
    out = []
    for place in range(1, tests + 1):
        first, second = ranked[place - 1], ranked[place]
        if first not in fit.bots or second not in fit.bots:
            out.append(PairVerdict(place, first, second, Verdict.OPEN, None, bounds, sequential.margin))
            continue
        a, b = fit.index(first), fit.index(second)
        gap, se = pair_gap(fit, a, b)
        units = int(min(fit.units[a], fit.units[b]))
        llr = sprt_llr(gap, se, sequential.margin)
        kept = sequential.kept(first, second)
        if kept is not None:
            out.append(PairVerdict(place, first, second, kept.verdict, llr, bounds, sequential.margin, kept))
            continue
        verdict = sprt(gap, se, units, sequential.margin, tests, sequential.confidence)
        if verdict is Verdict.OPEN:
            more = games_to_decide(llr, units, games, bounds)
            out.append(PairVerdict(place, first, second, verdict, llr, bounds, sequential.margin, None, more))
        else:
            decision = Decision(first, second, verdict, sequential.rounds, games)
            out.append(PairVerdict(place, first, second, verdict, llr, bounds, sequential.margin, decision))
    pairs = tuple(out)
    return Verdicts(pairs, summary(pairs, sequential, games), sequential)


def summary(pairs: Sequence[PairVerdict], sequential: Sequential, games: int) -> str | None:
    """``"top 3 decided after 12 rounds"``, ``"top 3 not decided after 7 rounds (time budget)"``
    (``"#1 …"`` when one place is asked); None without a pair."""
    if not pairs:
        return None
    label = "#1" if sequential.separate == 1 else f"top {sequential.separate}"
    if all(pair.verdict is not Verdict.OPEN for pair in pairs):
        rounds = [None if pair.decision is None else pair.decision.round for pair in pairs]
        if all(value is not None for value in rounds):
            return f"{label} decided after {_rounds(max(value for value in rounds if value is not None))}"
        return f"{label} decided"
    when = _rounds(sequential.rounds) if sequential.rounds is not None else _games(games)
    why = f" ({sequential.stopped})" if sequential.stopped else ""
    return f"{label} not decided after {when}{why}"


def _rounds(count: int) -> str:
    return f"{count} round{'s' if count != 1 else ''}"


def _games(count: int) -> str:
    return f"{count:,} game{'s' if count != 1 else ''}"
