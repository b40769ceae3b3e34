"""A verdict in words for every place the league asks to decide (docs/design.md §7). Pure.

The league's ``separate`` places ask about the neighbours #1/#2 ... #separate/#separate+1 of
the ranking. Each pair gets :func:`referee.standings.uncertainty.judge` (at ``margin``
points per game and ``confidence``, Bonferroni over the pairs asked): **ahead** when the
sequential test accepts "ahead by the margin", **level** within the margin when the
sequential test or the two one-sided tests conclude it, else **too close to call**. A
movement league looks after every round and keeps what each look decided
(:class:`Decision`): a pair decided once stays decided while the same two bots are
neighbours in that order (a "level" pair in either order), as a sequential test stops at
its first crossing. A pair not decided by a kept look gets the verdict of the standings
shown.

A pair too close to call says about how many more games would decide it (the fewer of
what the sequential test and the two one-sided tests need), but never more than
:data:`LESSONS` times the games played: beyond that it reads "practically equal: would
need more than 10 lessons" (a "lesson" being the league so far; "league" outside the
movement format). One line per pair
(:meth:`PairVerdict.text`), then the ranks the podium's bots may hold (the simultaneous
rank sets, :func:`podium_line`) and a summary (:func:`summary`):

    #2 quin ahead of #3 pia (decided after 12 rounds)
    #3 pia / #4 bo too close to call in this lesson: about 420 more games
    #4 bo / #5 cy practically equal: would need more than 10 lessons
    places possible (95%, whole table at once): #1 ann 1–2, #2 quin 1–3, #3 pia 2–5, #4 bo 3–8
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
    SEQUENTIAL_MIN_UNITS,
    Verdict,
    games_to_decide,
    games_to_level,
    judge,
    pair_gap,
    sprt_bounds,
    sprt_llr,
)

LESSONS = 10  # a verdict line never names more games than this many times the games played


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
    otherwise), why it ``stopped`` (e.g. ``"time budget"``; None while it runs), and
    whether it is a ``lesson`` (a movement: the verdicts' words say "lesson")."""

    separate: int = 1
    margin: float = MARGIN
    confidence: float = CONFIDENCE
    decided: tuple[Decision, ...] = ()
    rounds: int | None = None
    stopped: str | None = None
    lesson: bool = False

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
            "lesson": self.lesson,
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
                lesson=bool(data.get("lesson", False)),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()


@dataclass(frozen=True)
class PairVerdict:
    """The verdict on #``place`` ``first`` and #``place + 1`` ``second``: its sequential
    test's ``llr`` (None without a spread) against ``bounds``, the kept ``decision`` that
    decided it (AHEAD or LEVEL; None while OPEN), and for an OPEN pair about how many
    ``more_games`` would decide it (None when that cannot be estimated or is more than
    :data:`LESSONS` lessons: ``beyond`` is then True, and the pair reads "practically
    equal" when its ``gap`` is within the margin); ``lesson`` names the league in the
    words (``"lesson"`` for a movement, else ``"league"``); ``too_early`` before both
    bots have the units a verdict needs."""

    place: int
    first: str
    second: str
    verdict: Verdict
    llr: float | None
    bounds: tuple[float, float]
    margin: float
    decision: Decision | None = None
    more_games: int | None = None
    beyond: bool = False
    lesson: str = "league"
    too_early: bool = False
    gap: float | None = None

    def text(self) -> str:
        """One line: ``"#2 quin ahead of #3 pia (decided after 12 rounds)"``.

        >>> PairVerdict(1, "ann", "bo", Verdict.OPEN, 0.4, (-4.1, 4.1), 0.1, beyond=True, lesson="lesson", gap=0.03).text()
        '#1 ann / #2 bo practically equal: would need more than 10 lessons'
        """
        first, second = f"#{self.place} {self.first}", f"#{self.place + 1} {self.second}"
        when = "" if self.decision is None else f" ({self.decision.when()})"
        if self.verdict is Verdict.AHEAD:
            return f"{first} ahead of {second}{when}"
        if self.verdict is Verdict.LEVEL:
            return f"{first} level with {second}: within {self.margin:g} pts/g{when}"
        if self.too_early:
            return f"{first} / {second} too early to call: too few games yet"
        close = f"{first} / {second} too close to call in this {self.lesson}"
        if self.beyond:
            near = self.gap is not None and abs(self.gap) < self.margin
            return (f"{first} / {second} practically equal" if near else close) + f": would need more than {LESSONS} {self.lesson}s"
        if self.more_games is None:
            return close
        return f"{close}: about {self.more_games:,} more games"

    def to_json(self) -> dict[str, Any]:
        return {
            "place": self.place, "first": self.first, "second": self.second, "verdict": self.verdict.value,
            "llr": self.llr, "bounds": list(self.bounds), "margin": self.margin,
            "decided_after_rounds": None if self.decision is None else self.decision.round,
            "decided_after_games": None if self.decision is None else self.decision.games,
            "more_games": self.more_games, "practically_equal": self.beyond, "text": self.text(),
        }  # fmt: skip


@dataclass(frozen=True)
class Verdicts:
    """The pair verdicts of the places asked, the podium's rank sets (place, bot, (best,
    worst)) and the summary line (None without a pair)."""

    pairs: tuple[PairVerdict, ...] = ()
    summary: str | None = None
    sequential: Sequential = field(default_factory=Sequential)
    podium: tuple[tuple[int, str, tuple[int, int]], ...] = ()
    confidence: float = CONFIDENCE

    def podium_text(self) -> str | None:
        """:func:`podium_line` of the podium."""
        return podium_line(self.podium, self.confidence)

    def lines(self) -> list[str]:
        """The pair lines, the podium's rank sets, then the summary."""
        podium = self.podium_text()
        return [pair.text() for pair in self.pairs] + ([podium] if podium else []) + ([self.summary] if self.summary else [])

    def decisions(self) -> tuple[Decision, ...]:
        """The kept decisions with those of this look added (what a league keeps)."""
        kept = list(self.sequential.decided)
        for pair in self.pairs:
            if pair.decision is not None and pair.decision not in kept:
                kept = [d for d in kept if {d.first, d.second} != {pair.first, pair.second}] + [pair.decision]
        return tuple(kept)


def podium_line(podium: Sequence[tuple[int, str, tuple[int, int]]], confidence: float = CONFIDENCE) -> str | None:
    """The simultaneous rank sets of the podium's bots in one line; None without any.

    >>> podium_line([(1, "ann", (1, 2)), (2, "quin", (1, 3)), (3, "pia", (3, 3))])
    'places possible (95%, whole table at once): #1 ann 1–2, #2 quin 1–3, #3 pia 3'
    """
    if not podium:
        return None
    sets = ", ".join(f"#{place} {bot} {best}" + (f"–{worst}" if worst != best else "") for place, bot, (best, worst) in podium)
    return f"places possible ({confidence:.0%}, whole table at once): {sets}"


def pair_verdicts(fit: Strengths, ranked: Sequence[str], sequential: Sequential, games: int) -> Verdicts:
    """The verdicts on the neighbours of ``ranked`` (every bot with games, best first) that
    ``sequential`` asks about, at a look after ``games`` games of the league (module doc). A
    pair with a bot without games is OPEN.

    >>> from referee.standings.strength import Unit, fit_strengths
    >>> won = Unit(("a", "b"), {"a": (1.0, 1), "b": (0.0, 1)})  # one deal's rotations: a outlasted b
    >>> lost = Unit(("a", "b"), {"a": (0.0, 1), "b": (1.0, 1)})
    >>> pair_verdicts(fit_strengths([won] * 18 + [lost] * 2), ["a", "b"], Sequential(), games=20).lines()
    ['#1 a ahead of #2 b (decided after 20 games)', '#1 decided']
    >>> pair_verdicts(fit_strengths([won] * 7 + [lost] * 3), ["a", "b"], Sequential(), games=10).lines()
    ['#1 a / #2 b too close to call in this league: about 69 more games', '#1 not decided after 10 games']
    >>> pair_verdicts(fit_strengths([won, lost] * 200), ["a", "b"], Sequential(), games=400).lines()
    ['#1 a level with #2 b: within 0.1 pts/g (decided after 400 games)', '#1 decided']
    """
    tests = min(sequential.separate, len(ranked) - 1)
    bounds = sprt_bounds(tests, sequential.confidence)
    lesson = "lesson" if sequential.lesson or sequential.rounds is not None else "league"
    out = []
    for place in range(1, tests + 1):
        first, second = ranked[place - 1], ranked[place]
        if first not in fit.bots or second not in fit.bots:
            out.append(PairVerdict(place, first, second, Verdict.OPEN, None, bounds, sequential.margin, lesson=lesson, too_early=True))
            continue
        a, b = fit.index(first), fit.index(second)
        gap, se = pair_gap(fit, a, b)
        units = int(min(fit.units[a], fit.units[b]))
        llr = sprt_llr(gap, se, sequential.margin)
        kept = sequential.kept(first, second)
        if kept is not None:
            out.append(PairVerdict(place, first, second, kept.verdict, llr, bounds, sequential.margin, kept, lesson=lesson))
            continue
        verdict = judge(gap, se, units, sequential.margin, tests, sequential.confidence)
        if verdict is Verdict.OPEN:
            needs = [
                value for value in (
                    games_to_decide(llr, units, games, bounds),
                    games_to_level(gap, se, units, games, sequential.margin, tests, sequential.confidence),
                ) if value is not None
            ]  # fmt: skip
            more = min(needs) if needs else None
            beyond = more is not None and more > LESSONS * games
            early = units < SEQUENTIAL_MIN_UNITS and not beyond and more is None
            out.append(PairVerdict(
                place, first, second, verdict, llr, bounds, sequential.margin, None,
                None if beyond else more, beyond, lesson, early, gap,
            ))  # fmt: skip
        else:
            decision = Decision(first, second, verdict, sequential.rounds, games)
            out.append(PairVerdict(place, first, second, verdict, llr, bounds, sequential.margin, decision, lesson=lesson))
    pairs = tuple(out)
    return Verdicts(pairs, summary(pairs, sequential, games), sequential, confidence=sequential.confidence)


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
