"""B7 standings: simulated class-size leagues (the engine only: no gRPC, no processes) to
check the honesty of the standings and measure what ordering a class costs.

Bots are seeded strategies of known strength: at each decision with more than one legal
action, a bot of strength s plays the sample heuristic bot's choice with probability s,
else a uniformly random legal action. Leagues use the movement format at tables of 4
(:mod:`referee.schedule.movement`: 30 bots -> 15 tables, 60 games a round, 8 games and 2 units per
bot), and the statistics of :mod:`referee.standings.uncertainty` (what the standings print),
computed from each bot's units (a deal's rotations at one table). Every league has its
own seed; the leagues run in parallel processes (``--workers``, default all cores) and are
aggregated in seed order, so the figures do not depend on the worker count.

Figures:

- **coverage**: share of the bots' 95% intervals of points per game (after ``--rounds``
  rounds) that hold the true value: 1.5 for identical bots; for 4 tiers, the tier's mean
  over all simulated leagues;
- **tied**: share of leagues of identical bots where no two bots are separated (every
  rank range is 1–30);
- **efficiency**: variance of a bot's points per game across leagues with fresh random
  deals (no rotation) over that with duplicate deals, at equal games;
- **sequential stop vs fixed budget** (scenarios ``two``, ``tiers``, ``class``): a league
  is played round by round; after each round every adjacent-tier pair (a bot of tier t
  against one of tier t+1) gets :func:`referee.standings.uncertainty.sprt` at the scenario's margin,
  ``tests`` = the number of such pairs, from round ``--first-look`` on (a decision made
  earlier, on too few units, is only counted). The league stops *ordered* when all are
  AHEAD, *failed* when any is LEVEL (counted as not ordered), and is cut at
  ``--max-rounds``. The fixed budget is the fewest rounds after which one look with the
  fixed test (:func:`referee.standings.uncertainty.separated` at 95%, Bonferroni over the same
  pairs) orders the tiers in 95% of the leagues (computed exactly for ``two`` and
  ``tiers``: leagues that stopped earlier are replayed, same seeds, up to that round);
- **the class's groups** (issue 41) after ``--groups-rounds`` rounds (default 15: the
  teacher's 900 games) of the identical, 4-tier and lesson leagues: the pairs of truly
  different bots the groups tell apart (:func:`referee.standings.groups.class_groups`,
  Benjamini–Yekutieli, as the standings show them), their false-discovery proportion (pairs
  of equal bots or the wrong way round, over the pairs told apart; 0 when none) averaged
  over the leagues, the leagues with a pair the wrong way round, and the leagues with any
  false separation; beside them the same tests by Benjamini–Hochberg;
- **twins** (issue 41): 2 heuristic bots above 28 weaker; after every round the verdict on
  #1/#2 of the ranking (``separate`` = 1, the decisions of earlier looks kept, as ``referee
  run`` looks), until it says "level" or ``--twins-max-rounds``: the leagues where the
  twins were called level, the games it took, and any look that called them ahead;
- **verdict words**: the most games any verdict line of the twins and league-stop leagues
  named, over the games played (the bound is :data:`referee.standings.verdicts.LESSONS`);
- **league stop** (as ``referee run`` uses it): :func:`referee.standings.uncertainty.top_verdicts`
  over the ranking by points per game, places 1 and 3, margin
  :data:`referee.standings.uncertainty.MARGIN`; stopped when no verdict is OPEN. With identical bots
  any AHEAD is a false separation; with tiers, an AHEAD whose first bot is not of a
  stronger tier than the second is a wrong declared order;
- **class figure**: scenario ``class`` (tiers ~0.1 points per game apart) in games and
  minutes at the B4 rate (concurrency 4, games/s median, from bench/results.json), and the
  closed-form lower bound: one fixed-sample z-test of a single pair 0.1 points per game
  apart at 95% needs ``n = 2 (1.96 sd / 0.1)^2`` games per bot, ``sd`` the measured
  per-game standard deviation of points; 30 bots at tables of 4 play ``30 n / 4`` games.

    python bench/b7_standings.py                      # small (what make bench runs)
    python bench/b7_standings.py --leagues 200        # 200 leagues for coverage, ties, two tiers
    python bench/run.py --only B7 --b7-leagues 200 --b7-args "--stop-leagues 10 --class-leagues 4
        --max-rounds 400 --class-max-rounds 1500 --budget-minutes 34 --hard-minutes 41"

``--budget-minutes`` starts no league after that time and ``--hard-minutes`` abandons the
leagues still playing: each group of leagues keeps those played, in seed order, up to the
first one not played, and the figures say how many that is.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import common
from common import Figure

sys.path.insert(0, str(common.ROOT / "sample_bots" / "python"))

from heuristic_bot import HeuristicBot  # noqa: E402
from scipy import stats  # noqa: E402
from scipy.stats import norm  # noqa: E402

from referee.game.engine import Game  # noqa: E402
from referee.game.rules import Rules  # noqa: E402
from referee.game.views import Action, ChooseTrump, DecisionKind, Pass, Play, fallback_action  # noqa: E402
from referee.schedule.fixture import Fixture, deal_hash  # noqa: E402
from referee.schedule.movement import movement_rounds  # noqa: E402
from referee.standings.groups import benjamini_hochberg, class_groups, pair_tests  # noqa: E402
from referee.standings.strength import Unit, fit_strengths  # noqa: E402
from referee.standings.uncertainty import CONFIDENCE, MARGIN, Verdict, intervals, rank_sets, ranking, separations, sprt, sprt_bounds, sprt_llr  # noqa: E402
from referee.standings.verdicts import LESSONS, Sequential, pair_verdicts  # noqa: E402

B4_GAMES_PER_S = 10.6  # fallback when bench/results.json has no B4 figure (concurrency 4, median)
RULES = Rules()
HEURISTIC = HeuristicBot()
BOTS = 30
PLACES = (1, 3)  # the league stop's places, as `referee run` uses them (stop = "separated")
Z95 = float(norm.ppf(0.975))  # two-sided 95% normal quantile


@dataclass(frozen=True)
class Scenario:
    """30 bots in tiers of the given strengths (tier 0 the strongest); ``margin`` is the
    SPRT's gap in points per game: the smallest true adjacent-tier gap (from a pilot of
    this script, rounded down), so the test looks for the gap that is there. ``kinds``
    names a tier's strategy when it is not the heuristic mix ("lowest": the heuristic's
    trump, then always the lowest legal card, as the referee's fallback plays;
    "crash": forfeits every game at its first decision); ``counts`` the bots of each tier
    (default: bot i in tier i mod tiers)."""

    label: str
    strengths: tuple[float, ...]
    margin: float
    kinds: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()

    def tier_of(self) -> dict[str, int]:
        """Bot name -> tier."""
        levels = len(self.strengths)
        if not self.counts:
            return {f"t{i % levels}-{i:02d}": i % levels for i in range(BOTS)}
        tiers = [tier for tier, count in enumerate(self.counts) for _ in range(count)]
        return {f"t{tier}-{i:02d}": tier for i, tier in enumerate(tiers)}


LESSON_NAMES = ("heuristic", "h90", "h80", "h65", "h40", "random", "lowest", "crasher")
SCENARIOS = {
    "identical": Scenario("30 identical bots (strength 0.5)", (0.5,), MARGIN),
    "two": Scenario("2 tiers (heuristic / random)", (1.0, 0.0), 0.6),
    "tiers": Scenario("4 tiers (strength 0.9/0.6/0.3/0)", (0.9, 0.6, 0.3, 0.0), 0.15),
    "class": Scenario("class: 4 tiers ~0.1 pts/g apart (strength 0.7/0.55/0.4/0.25)", (0.7, 0.55, 0.4, 0.25), 0.1),
    "twins": Scenario("twins: 2 heuristic bots above 28 weaker (strength 0.6/0.3/0)", (1.0, 0.6, 0.3, 0.0), MARGIN, counts=(2, 9, 9, 10)),
    "lesson": Scenario(
        "lesson: 8 strategies (heuristic 1.0/0.9/0.8/0.65/0.4, random, lowest card, a crasher), 30 bots",
        (1.0, 0.9, 0.8, 0.65, 0.4, 0.0, 0.0, 0.0), MARGIN,
        kinds=("mix",) * 6 + ("lowest", "crash"), counts=(4, 4, 4, 4, 4, 4, 5, 1),
    ),
}


def b4_rate() -> tuple[float, str]:
    """The B4 rate (games/s, concurrency 4, median) from bench/results.json, else the fallback."""
    try:
        payload = json.loads((common.ROOT / "bench" / "results.json").read_text())["B4"]
        figure = common.load_figures(payload)["games_c4"]
        return figure.median, f"B4 concurrency 4 median, bench/results.json ({payload.get('run', 'undated')})"
    except (OSError, KeyError, ValueError):
        return B4_GAMES_PER_S, "fallback constant (no B4 figure in bench/results.json)"


class Strategy:
    """The heuristic bot's choice with probability ``strength``, else a random legal action;
    or, by ``kind``, the lowest legal card ("lowest") or a forfeit at the first decision of
    every game ("crash", as a bot that crashes: placed last)."""

    def __init__(self, strength: float, rng: random.Random, kind: str = "mix") -> None:
        self.strength = strength
        self.rng = rng
        self.kind = kind

    def __call__(self, game: Game, seat: int) -> Action:
        legal = game.legal_actions()
        if self.kind == "crash":
            game.forfeit(seat)
            return legal[0] if len(legal) == 1 else fallback_action(game.view(seat))
        if len(legal) == 1:  # forced: neither the heuristic nor the dice matter
            return legal[0]
        if self.kind == "lowest":  # the heuristic's trump, then always the lowest legal card
            view = game.view(seat)
            if view.decision is DecisionKind.CHOOSE_TRUMP:
                return ChooseTrump(HEURISTIC.choose_trump(view))
            return fallback_action(view)
        if self.strength < 1.0 and self.rng.random() >= self.strength:
            return self.rng.choice(legal)
        view = game.view(seat)  # only the heuristic reads a view
        if view.decision is DecisionKind.CHOOSE_TRUMP:
            return ChooseTrump(HEURISTIC.choose_trump(view))
        card = HEURISTIC.play(view)
        return Pass() if card is None else Play(card)


def play(fixture: Fixture, seed: int, strategies: dict[str, Strategy]) -> tuple[int, ...]:
    """The placements of one game of ``fixture`` dealt from ``seed``."""
    game = Game(len(fixture.seats), RULES, seed, game_id=fixture.game_id, first_dealer=fixture.first_dealer)
    seats = [strategies[name] for name in fixture.seats]
    apply = game.apply
    while not game.over:
        seat = game.to_act
        assert seat is not None
        apply(seat, seats[seat](game, seat))
    assert game.outcome is not None
    return tuple(game.outcome.placements)


class League:
    """One simulated league of ``scenario``, played round by round; ``units[bot][unit] =
    [points, games]`` (a unit: a deal's rotations at one table), each unit's table in
    ``tables``, each bot's per-game points as count, sum, sum of squares, and its
    table-mates, one entry per game (``mates``)."""

    def __init__(self, scenario: Scenario, seed: int, fresh: bool = False) -> None:
        self.tiers = scenario.tier_of()
        kinds = scenario.kinds or ("mix",) * len(scenario.strengths)
        self.strategies = {
            name: Strategy(scenario.strengths[tier], random.Random(deal_hash(seed, "bot", name)), kinds[tier]) for name, tier in self.tiers.items()
        }
        self.rounds = movement_rounds(sorted(self.tiers), 4, 1, seed)
        self.fresh = fresh
        self.units: dict[str, dict[object, list[float]]] = {name: {} for name in self.tiers}
        self.tables: dict[object, tuple[str, ...]] = {}
        self.moments: dict[str, list[float]] = {name: [0, 0.0, 0.0] for name in self.tiers}
        self.mates: dict[str, list[str]] = {name: [] for name in self.tiers}
        self.results: list[tuple[tuple[str, ...], tuple[int, ...]]] = []  # (seats, placements) per game
        self.games = 0
        self.played = 0  # rounds

    def play_round(self) -> None:
        for fixture in next(self.rounds):
            seed = deal_hash(fixture.seed, fixture.rotation) if self.fresh else fixture.seed
            unit = (fixture.seed, fixture.rotation) if self.fresh else fixture.seed
            placements = play(fixture, seed, self.strategies)
            self.tables[unit] = tuple(sorted(fixture.seats))
            self.results.append((tuple(fixture.seats), placements))
            for seat, bot in enumerate(fixture.seats):
                mine = placements[seat]
                points = sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0 for other, theirs in enumerate(placements) if other != seat)
                tally = self.units[bot].setdefault(unit, [0.0, 0])
                tally[0] += points
                tally[1] += 1
                moments = self.moments[bot]
                moments[0] += 1
                moments[1] += points
                moments[2] += points * points
                self.mates[bot].extend(other for other in fixture.seats if other != bot)
            self.games += 1
        self.played += 1

    def raw_intervals(self, confidence: float = CONFIDENCE) -> dict[str, RawInterval]:
        """Per bot: points per game with the t interval over its units (the method before issue 29)."""
        out = {}
        for bot, units in self.units.items():
            points = sum(p for p, _ in units.values())
            games = sum(n for _, n in units.values())
            out[bot] = raw_interval(points / games, [p / n for p, n in units.values()], confidence)
        return out

    def unit_list(self) -> list[Unit]:
        """The units for :func:`referee.standings.strength.fit_strengths`, in a canonical order."""
        scores: dict[object, dict[str, tuple[float, int]]] = {}
        for bot, units in self.units.items():
            for unit, (points, games) in units.items():
                scores.setdefault(unit, {})[bot] = (points, int(games))
        return [Unit(self.tables[unit], scores[unit]) for unit in sorted(scores, key=str)]

    def adjacent_pairs(self) -> list[tuple[str, str]]:
        """(stronger, weaker): every bot of tier t with every bot of tier t + 1."""
        return [(a, b) for a, ta in self.tiers.items() for b, tb in self.tiers.items() if tb == ta + 1]


@dataclass(frozen=True)
class RawInterval:
    """Points per game with its t interval over units, and the standard error (the
    standings before issue 29; the fixed test and the sequential-stop scenarios use it)."""

    mean: float
    low: float | None
    high: float | None
    units: int
    sem: float | None = None


def raw_interval(points_per_game: float, unit_scores: Sequence[float], confidence: float = CONFIDENCE) -> RawInterval:
    units = len(unit_scores)
    if units < 2:
        return RawInterval(points_per_game, None, None, units)
    sem = float(stats.sem(unit_scores))
    half = float(stats.t.ppf(0.5 + confidence / 2, units - 1)) * sem
    return RawInterval(points_per_game, points_per_game - half, points_per_game + half, units, sem)


def pairs_of(bots: int) -> int:
    return max(1, bots * (bots - 1) // 2)


def bonferroni_separated(first: RawInterval, second: RawInterval, pairs: int, confidence: float = CONFIDENCE) -> bool:
    """Today's method before issue 29: ``first`` above ``second`` when the gap of points per
    game exceeds the t quantile at ``(1 - confidence) / pairs`` (df: the fewer units - 1)
    times ``sqrt(se_a^2 + se_b^2)``."""
    if first.sem is None or second.sem is None:
        return False
    q = float(stats.t.ppf(1 - (1 - confidence) / pairs / 2, min(first.units, second.units) - 1))
    return first.mean - second.mean > q * math.hypot(first.sem, second.sem)


def raw_sprt(first: RawInterval, second: RawInterval, margin: float, tests: int) -> Verdict:
    """:func:`referee.standings.uncertainty.sprt` on two bots' raw intervals (independent bots)."""
    se = None if first.sem is None or second.sem is None else math.hypot(first.sem, second.sem)
    return sprt(first.mean - second.mean, se, min(first.units, second.units), margin, tests)


@dataclass(frozen=True)
class Task:
    """One league to play: ``snapshot`` rounds for the coverage figures, then, with
    ``stop``, on round by round (up to ``max_rounds``) until the sequential stop, the fixed
    test's first ordered round, the league stop at every place count, and ``until`` are
    all reached."""

    scenario: str
    seed: int
    fresh: bool = False
    snapshot: int = 0
    stop: bool = False
    max_rounds: int = 0
    until: int = 0
    first_look: int = 1
    stop_by: float = 0.0  # time.time() after which the league is abandoned (0: never)
    top_stop: bool = False  # also the league stop (top_verdicts) at every place count
    late: int = 0  # a second snapshot (the groups) after this many rounds (0: none)
    twins: bool = False  # the verdict on #1/#2 after every round (separate = 1), up to max_rounds or a LEVEL


@dataclass
class Snapshot:
    """The standings of a league after ``Task.snapshot`` rounds: per bot the adjusted strength
    with its interval (estimate, low, high), its rank set, its raw points per game; the
    pairs (stronger, weaker) the rank sets' test establishes; the pairs today's method separates ((above, below): raw points per game, Bonferroni t
    tests); Plackett-Luce log-strengths fitted by choix (the lesson only); and each bot's
    table-mates, one entry per game (the lesson only)."""

    strength: dict[str, tuple[float, float | None, float | None]]
    sets: dict[str, tuple[int, int]]
    raw: dict[str, float]
    new_pairs: list[tuple[str, str]]
    old_pairs: list[tuple[str, str]]
    pl: dict[str, float] = field(default_factory=dict)
    mates: dict[str, list[str]] = field(default_factory=dict)
    groups: list[tuple[str, str]] = field(default_factory=list)  # told apart (stronger, weaker): the standings' groups
    groups_bh: list[tuple[str, str]] = field(default_factory=list)  # the same tests at the same rate by Benjamini–Hochberg
    letters: dict[str, str] = field(default_factory=dict)


@dataclass
class Outcome:
    """What one league measured; rounds are 1-based counts of rounds played."""

    seed: int
    games_per_round: int = 0
    rounds: int = 0
    snapshot: Snapshot | None = None
    sprt_round: int | None = None  # the sequential stop (all AHEAD, or a LEVEL)
    sprt_ordered: bool = False  # stopped with every adjacent-tier pair AHEAD
    early: tuple[int, bool] | None = None  # a decision before the first look: (round, all AHEAD)
    min_llr: float | None = None  # the smallest adjacent-tier LLR at the last round (not stopped)
    upper: float = 0.0  # the SPRT's upper bound
    fixed: list[bool] = field(default_factory=list)  # fixed test ordered after round r + 1
    league_stop: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)  # places -> (round, AHEAD, wrong AHEAD, LEVEL across tiers)
    tier_means: dict[int, float] = field(default_factory=dict)  # at the last round
    moments: dict[int, tuple[float, float, float]] = field(default_factory=dict)  # tier -> (games, sum, sum of squares)
    unit_sd: float = 0.0  # mean over bots of the standard deviation of unit scores, last round
    late: Snapshot | None = None  # after Task.late rounds
    twins_level: int | None = None  # the round at which #1/#2 (the twins) were first called level
    twins_wrong: int = 0  # looks at which #1/#2 were called ahead although both are twins
    twins_pair: int = 0  # looks at which #1/#2 were the twins
    words: tuple[float, int] = (0.0, 0)  # (the largest count of games a verdict line named ÷ the games played, lines read)


def snapshot(league: League, lesson: bool) -> Snapshot:
    """The standings of ``league`` now, by the referee's functions and by today's method."""
    fit = fit_strengths(league.unit_list())
    strength = {bot: (i.estimate, i.low, i.high) for bot, i in zip(fit.bots, intervals(fit), strict=True)}
    sets = dict(zip(fit.bots, rank_sets(fit), strict=True))
    new = [(fit.bots[a], fit.bots[b]) for a, b in separations(fit)]
    raw = league.raw_intervals()
    pairs = pairs_of(len(raw))
    old = [(a, b) for a in raw for b in raw if a != b and bonferroni_separated(raw[a], raw[b], pairs)]
    out = Snapshot(strength, sets, {bot: value.mean for bot, value in raw.items()}, new, old)
    groups = class_groups(fit)
    out.groups = list(groups.apart)
    out.letters = dict(groups.letters)
    tests = pair_tests(fit)
    out.groups_bh = [(fit.bots[a], fit.bots[b]) for (a, b, _), yes in zip(tests, benjamini_hochberg([p for *_, p in tests]), strict=True) if yes]
    if lesson:
        out.pl = plackett_luce(league)
        out.mates = {bot: list(mates) for bot, mates in league.mates.items()}
    return out


def plackett_luce(league: League) -> dict[str, float]:
    """Plackett-Luce log-strengths from every game's placements (choix's ILSR; ties broken
    at random, seeded; a small regularisation so a bot that never wins has a finite value)."""
    import choix

    names = sorted(league.tiers)
    index = {name: i for i, name in enumerate(names)}
    rng = random.Random(league.played)
    rankings: list[tuple[int, ...]] = []
    for seats, placements in league.results:
        order = sorted(range(len(seats)), key=lambda seat: (placements[seat], rng.random()))
        rankings.append(tuple(index[seats[seat]] for seat in order))
    params = choix.ilsr_rankings(len(names), rankings, alpha=0.01)
    return {name: float(params[index[name]]) for name in names}


def league_stop(league: League, kept: dict[int, Sequential], out: Outcome) -> None:
    """The league stop as ``referee run`` looks after a round (places 1 and 3): the verdicts
    of :func:`referee.standings.verdicts.pair_verdicts` over the ranking by strength, with
    the decisions of earlier looks kept; stopped when none is OPEN."""
    fit = fit_strengths(league.unit_list())
    ranked = [fit.bots[i] for i in ranking(fit)]
    for places in PLACES:
        if places in out.league_stop:
            continue
        sequential = Sequential(separate=places, margin=MARGIN, decided=kept[places].decided, rounds=league.played)
        verdicts = pair_verdicts(fit, ranked, sequential, league.games)
        read_words(verdicts.lines(), league.games, out)
        kept[places] = Sequential(separate=places, decided=verdicts.decisions())
        if all(pair.verdict is not Verdict.OPEN for pair in verdicts.pairs):
            ahead = [pair for pair in verdicts.pairs if pair.verdict is Verdict.AHEAD]
            wrong = sum(1 for pair in ahead if league.tiers[pair.first] >= league.tiers[pair.second])
            level = [pair for pair in verdicts.pairs if pair.verdict is Verdict.LEVEL]
            out.league_stop[places] = (league.played, len(ahead), wrong, sum(1 for pair in level if league.tiers[pair.first] != league.tiers[pair.second]))


NAMED_GAMES = re.compile(r"about ([\d,]+) more games")


def read_words(lines: Sequence[str], games: int, out: Outcome) -> None:
    """Keep in ``out.words`` the largest count of games a verdict line names, over the games played."""
    worst, read = out.words
    for line in lines:
        for number in NAMED_GAMES.findall(line):
            worst = max(worst, int(number.replace(",", "")) / max(1, games))
    out.words = (worst, read + len(lines))


def twins_look(league: League, kept: Sequential, out: Outcome) -> Sequential:
    """The verdict on #1/#2 of the ranking by strength, as ``referee run`` looks after a
    round (separate = 1, the decisions of earlier looks kept)."""
    fit = fit_strengths(league.unit_list())
    ranked = [fit.bots[i] for i in ranking(fit)]
    sequential = Sequential(separate=1, margin=MARGIN, decided=kept.decided, rounds=league.played)
    verdicts = pair_verdicts(fit, ranked, sequential, league.games)
    read_words(verdicts.lines(), league.games, out)
    pair = verdicts.pairs[0]
    if league.tiers[pair.first] == league.tiers[pair.second] == 0:
        out.twins_pair += 1
        if pair.verdict is Verdict.AHEAD:
            out.twins_wrong += 1
        if pair.verdict is Verdict.LEVEL and out.twins_level is None:
            out.twins_level = league.played
    return Sequential(separate=1, decided=verdicts.decisions())


def run_task(task: Task) -> Outcome | None:
    """One league's outcome; None when abandoned at ``task.stop_by``."""
    scenario = SCENARIOS[task.scenario]
    league = League(scenario, task.seed, task.fresh)
    out = Outcome(task.seed)
    pairs = league.adjacent_pairs()
    tiered = len(scenario.strengths) > 1
    lower, upper = sprt_bounds(len(pairs), CONFIDENCE)
    out.upper = upper
    kept = {places: Sequential(separate=places) for places in PLACES}
    twins = Sequential(separate=1)
    while True:
        if task.stop_by and time.time() > task.stop_by:
            return None
        league.play_round()
        if league.played == task.snapshot:
            out.snapshot = snapshot(league, task.scenario == "lesson")
        if league.played == task.late:
            out.late = snapshot(league, False)
        if task.twins:
            twins = twins_look(league, twins, out)
            if out.twins_level is not None or league.played >= task.max_rounds:
                break
            continue
        if not task.stop:
            if league.played >= max(task.snapshot, task.late):
                break
            continue
        raw = league.raw_intervals()
        if tiered and out.sprt_round is None:
            verdicts = [raw_sprt(raw[a], raw[b], scenario.margin, len(pairs)) for a, b in pairs]
            if Verdict.LEVEL in verdicts or all(v is Verdict.AHEAD for v in verdicts):
                if league.played >= task.first_look:
                    out.sprt_round = league.played
                    out.sprt_ordered = Verdict.LEVEL not in verdicts
                elif out.early is None:
                    out.early = (league.played, Verdict.LEVEL not in verdicts)
        if tiered:
            out.fixed.append(all(bonferroni_separated(raw[a], raw[b], len(pairs)) for a, b in pairs))
        if task.top_stop:
            league_stop(league, kept, out)
        done = (
            league.played >= task.snapshot
            and league.played >= task.until
            and (not tiered or (out.sprt_round is not None and out.fixed[-1]))
            and (not task.top_stop or len(out.league_stop) == len(PLACES))
        )
        if done or league.played >= task.max_rounds:
            if tiered and out.sprt_round is None:
                out.min_llr = min(_llr(raw[a], raw[b], scenario.margin) for a, b in pairs)
            break
    raw = league.raw_intervals()
    out.rounds = league.played
    out.games_per_round = league.games // league.played
    levels = len(scenario.strengths)
    out.tier_means = {t: statistics.fmean(raw[b].mean for b in league.tiers if league.tiers[b] == t) for t in range(levels)}
    for t in range(levels):
        rows = [league.moments[b] for b in league.tiers if league.tiers[b] == t]
        out.moments[t] = (sum(r[0] for r in rows), sum(r[1] for r in rows), sum(r[2] for r in rows))
    out.unit_sd = statistics.fmean(statistics.stdev([p / n for p, n in units.values()]) for units in league.units.values())
    return out


def _llr(first: RawInterval, second: RawInterval, margin: float) -> float:
    se = None if first.sem is None or second.sem is None else math.hypot(first.sem, second.sem)
    value = sprt_llr(first.mean - second.mean, se, margin)
    return -math.inf if value is None else value


def run_all(tasks: Sequence[Task], workers: int, deadline: float | None = None) -> list[Outcome | None]:
    """The outcomes in the order of ``tasks`` (each league is seeded: any worker count gives
    the same outcomes). No league starts after ``deadline`` (a time.monotonic() value): its
    outcome is None (leagues already running finish)."""
    if workers <= 1 or len(tasks) <= 1:
        return [run_task(task) if deadline is None or time.monotonic() < deadline else None for task in tasks]
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
        futures = [pool.submit(run_task, task) for task in tasks]
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        _, pending = wait(futures, timeout=timeout)
        for future in pending:
            future.cancel()
        return [None if future.cancelled() else future.result() for future in futures]  # type: ignore[misc]


def prefix(outcomes: Sequence[Outcome | None]) -> list[Outcome]:
    """The outcomes of the leagues before the first one not played (seed order)."""
    out = []
    for outcome in outcomes:
        if outcome is None:
            break
        out.append(outcome)
    return out


def fixed_budget(outcomes: list[Outcome], tasks: list[Task], workers: int, exact: bool) -> tuple[list[Outcome], int | None, bool]:
    """The fewest rounds r after which the fixed test orders the tiers in >= 95% of the
    leagues; None when not reached within the rounds played. A league ends at a round
    where the test orders its tiers (or at its max rounds); with ``exact``, leagues that
    ended before r are replayed (same seed) up to r, so every flag up to r is measured;
    without (or when a replay is abandoned), a league is taken to stay ordered after its
    last round. Returns the outcomes, the rounds, and whether they are exact."""
    need = math.ceil(0.95 * len(outcomes))
    while True:
        horizon = max(o.rounds for o in outcomes)
        count = [sum(1 for o in outcomes if r < len(o.fixed) and o.fixed[r]) for r in range(horizon)]
        # a league that ended before r is counted with its last flag (checked below by replaying)
        carried = [sum(1 for o in outcomes if (o.fixed[r] if r < len(o.fixed) else o.fixed[-1])) for r in range(horizon)]
        candidate = next((r + 1 for r in range(horizon) if carried[r] >= need), None)
        if candidate is None:
            return outcomes, None, exact
        short = [i for i, o in enumerate(outcomes) if o.rounds < candidate]
        if not exact:
            return outcomes, candidate, False
        if not short:
            return outcomes, next(r + 1 for r in range(horizon) if count[r] >= need), True
        again = [Task(**{**tasks[i].__dict__, "until": candidate}) for i in short]
        replayed = run_all(again, workers)
        if any(outcome is None for outcome in replayed):
            return outcomes, candidate, False
        for i, outcome in zip(short, replayed, strict=True):
            assert outcome is not None
            outcomes[i] = outcome


def pooled_sd(outcomes: Iterable[Outcome]) -> float:
    """The per-game standard deviation of points within tiers, pooled over the leagues."""
    games = total = squares = 0.0
    correction = 0.0
    for outcome in outcomes:
        for n, s, q in outcome.moments.values():
            games += n
            squares += q - s * s / n  # within this tier of this league
            correction += 1
    return math.sqrt(squares / (games - correction))


def true_ranks(tiers: dict[str, int], values: dict[int, float]) -> dict[str, int]:
    """Each bot's true rank: 1 + the bots of a truly stronger tier (tied bots share the rank)."""
    return {bot: 1 + sum(values[other] > values[tier] + 1e-9 for other in tiers.values()) for bot, tier in tiers.items()}


def covers(snapshot: Snapshot, tiers: dict[str, int], values: dict[int, float]) -> bool:
    """Every bot's rank set holds its true rank (all at once)."""
    ranks = true_ranks(tiers, values)
    return all(snapshot.sets[bot][0] <= ranks[bot] <= snapshot.sets[bot][1] for bot in tiers)


def separated_counts(pairs: Iterable[tuple[str, str]], tiers: dict[str, int], values: dict[int, float]) -> tuple[int, int]:
    """(pairs in the true order, pairs against it or between equal bots) among ``pairs`` (stronger, weaker)."""
    right = wrong = 0
    for above, below in pairs:
        if values[tiers[above]] > values[tiers[below]] + 1e-9:
            right += 1
        else:
            wrong += 1
    return right, wrong


def pairs_figures(figures: list[Figure], extra: dict[str, object], key: str, label: str, snapshots: Sequence[Snapshot], tiers: dict[str, int], values: dict[int, float]) -> None:
    """Pairs of truly different bots separated per league: the rank sets' test against today's method."""
    different = sum(1 for a in tiers for b in tiers if values[tiers[a]] > values[tiers[b]] + 1e-9)
    new = [separated_counts(s.new_pairs, tiers, values) for s in snapshots]
    old = [separated_counts(s.old_pairs, tiers, values) for s in snapshots]
    count = len(snapshots)
    figures.append(Figure(f"{key}_pairs_new", f"{label}: pairs of truly different bots separated by the rank sets (of {different}; per league, {count} leagues)", "pairs", [float(r) for r, _ in new]))
    figures.append(Figure(f"{key}_pairs_old", f"{label}: the same pairs separated by today's method (points per game, Bonferroni t tests)", "pairs", [float(r) for r, _ in old]))
    figures.append(Figure(f"{key}_pairs_ratio", f"{label}: pairs separated, rank sets ÷ today's method (all leagues)", "×", [sum(r for r, _ in new) / max(1, sum(r for r, _ in old))]))
    extra[f"{key}_wrong_separations"] = f"rank sets: {sum(w for _, w in new)} wrong pairs in {sum(1 for _, w in new if w)} of {count} leagues; today's: {sum(w for _, w in old)} in {sum(1 for _, w in old if w)}"


def true_values(snapshots: Sequence[Snapshot], tiers: dict[str, int]) -> dict[int, float]:
    """Each tier's true points per game: its bots' mean over every league (schedule luck averages out)."""
    return {t: statistics.fmean(s.raw[b] for s in snapshots for b in tiers if tiers[b] == t) for t in set(tiers.values())}


def groups_figures(figures: list[Figure], extra: dict[str, object], key: str, label: str, snapshots: Sequence[Snapshot], tiers: dict[str, int], values: dict[int, float]) -> None:
    """The class's groups (Benjamini–Yekutieli, as the standings show them) and the same
    tests by Benjamini–Hochberg: truly different pairs told apart, the false-discovery
    proportion (pairs of equal bots, or the wrong way round, over the pairs told apart; 0
    when none), leagues with a pair the wrong way round, leagues with any false separation."""
    different = sum(1 for a in tiers for b in tiers if values[tiers[a]] > values[tiers[b]] + 1e-9)
    count = len(snapshots)
    for method, pick in (("groups", lambda s: s.groups), ("bh", lambda s: s.groups_bh)):
        counts = [separated_counts(pick(s), tiers, values) for s in snapshots]
        backwards = [sum(1 for a, b in pick(s) if values[tiers[a]] < values[tiers[b]] - 1e-9) for s in snapshots]
        name = "the groups (Benjamini–Yekutieli)" if method == "groups" else "Benjamini–Hochberg on the same tests"
        if different:
            figures.append(Figure(f"{key}_{method}_right", f"{label}: pairs of truly different bots told apart by {name} (of {different}; per league, {count} leagues)", "pairs", [float(r) for r, _ in counts]))
            figures.append(Figure(f"{key}_{method}_ordered", f"{label}: leagues where {name} put no bot above a truly stronger one", "%", [100 * sum(1 for b in backwards if not b) / count]))
        figures.append(Figure(f"{key}_{method}_fdp", f"{label}: false-discovery proportion of {name}, mean over leagues", "%", [100 * statistics.fmean(w / (r + w) if r + w else 0.0 for r, w in counts)]))
        figures.append(Figure(f"{key}_{method}_false_leagues", f"{label}: leagues with a false separation by {name}", "%", [100 * sum(1 for _, w in counts if w) / count]))
    letters = [len(set("".join(s.letters.values()))) for s in snapshots if s.letters]
    if letters:
        extra[f"{key}_groups_letters"] = f"median {statistics.median(letters):g} letters (min {min(letters)}, max {max(letters)}) over {len(letters)} leagues"
    if key == "lesson":
        extra["lesson_groups_true_points_per_game"] = {LESSON_NAMES[t]: round(v, 3) for t, v in sorted(values.items())}


def lesson_figures(figures: list[Figure], extra: dict[str, object], snapshots: Sequence[Snapshot], rounds: int) -> None:
    """The lesson scenario: true strengths (each strategy's mean points per game over every
    league, so schedule luck averages out), then per league the schedule luck, Spearman and
    out-of-tier rates of strength, points per game and Plackett-Luce, rank sets, pairs."""
    tiers = League(SCENARIOS["lesson"], 0).tiers
    bots = sorted(tiers)
    count = len(snapshots)
    values = {t: statistics.fmean(s.raw[b] for s in snapshots for b in bots if tiers[b] == t) for t in set(tiers.values())}
    extra["lesson_true_points_per_game"] = {LESSON_NAMES[t]: round(v, 3) for t, v in sorted(values.items())}
    extra["lesson_games_per_league"] = rounds * 60
    label = f"lesson, 8 strategies, 30 bots, {rounds} rounds"
    order = sorted(set(tiers.values()), key=lambda t: -values[t])
    blocks: dict[int, tuple[int, int]] = {}
    start = 0
    for tier in order:
        size = sum(1 for b in bots if tiers[b] == tier)
        blocks[tier] = (start, start + size - 1)
        start += size
    truth = [values[tiers[b]] for b in bots]
    spearman: dict[str, list[float]] = {"strength": [], "raw": [], "pl": []}
    outside: dict[str, list[float]] = {"strength": [], "raw": [], "pl": []}
    luck = []
    for s in snapshots:
        estimates = {"strength": {b: s.strength[b][0] for b in bots}, "raw": s.raw, "pl": s.pl}
        for key, estimate in estimates.items():
            spearman[key].append(float(stats.spearmanr([estimate[b] for b in bots], truth).statistic))
            ranked = sorted(bots, key=lambda b: (-estimate[b], b))
            outside[key].append(100 * sum(not blocks[tiers[b]][0] <= place <= blocks[tiers[b]][1] for place, b in enumerate(ranked)) / len(bots))
        mates = [statistics.fmean(values[tiers[mate]] for mate in s.mates[b]) for b in bots]
        luck.append(max(mates) - min(mates))
    figures.append(Figure("lesson_luck", f"{label}: schedule luck, spread (max − min) of the bots' mean true strength of table-mates", "pts/g", luck))
    names = {"strength": "strength (additive model)", "raw": "points per game", "pl": "Plackett–Luce (choix)"}
    for key in spearman:
        figures.append(Figure(f"lesson_spearman_{key}", f"{label}: Spearman of {names[key]} with the true strengths ({count} leagues)", "", spearman[key]))
    gain = [a - b for a, b in zip(spearman["strength"], spearman["raw"], strict=True)]
    figures.append(Figure("lesson_spearman_gain", f"{label}: Spearman of strength − Spearman of points per game, same league (mean {statistics.fmean(gain):+.4f})", "", gain))
    figures.append(Figure("lesson_spearman_gain_mean", f"{label}: the same, mean over the leagues", "", [statistics.fmean(gain)]))
    for key in outside:
        figures.append(Figure(f"lesson_outside_{key}", f"{label}: bots ranked outside their strategy's places by {names[key]}", "%", outside[key]))
    figures.append(Figure("sets_lesson", f"{label}: rank sets holding every true rank at once ({count} leagues)", "%", [100 * sum(covers(s, tiers, values) for s in snapshots) / count]))
    pairs_figures(figures, extra, "lesson", label, snapshots, tiers, values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="ignored (one pass: the leagues are the repetitions)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter leagues (a smoke run)")
    parser.add_argument("--sandbox", default="none", help="ignored (no processes)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="parallel processes (default: the cores)")
    parser.add_argument("--leagues", type=int, default=None, help="leagues for coverage, ties and efficiency (default 6; 2 with --quick; 200 for the full figures)")
    parser.add_argument("--fresh-leagues", type=int, default=None, help="leagues with fresh deals for the efficiency figure (default: --leagues)")
    parser.add_argument("--two-leagues", type=int, default=None, help="leagues of the two-tier stop scenario (default: --leagues)")
    parser.add_argument("--stop-leagues", type=int, default=None, help="leagues of the 4-tier stop scenario (default: --leagues, at most 3)")
    parser.add_argument("--error-leagues", type=int, default=None, help="leagues (identical bots, and of the 4-tier ones) for the league stop's error rates (default: --stop-leagues)")
    parser.add_argument("--class-leagues", type=int, default=None, help="leagues of the class scenario (default: --stop-leagues, at most 2)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of the coverage and efficiency leagues (default 6; 3 with --quick)")
    parser.add_argument("--lesson-leagues", type=int, default=None, help="leagues of the lesson scenario (default: --leagues)")
    parser.add_argument("--lesson-rounds", type=int, default=7, help="rounds of the lesson scenario (default 7, the lesson's)")
    parser.add_argument("--max-rounds", type=int, default=None, help="rounds at most in the stop leagues (default 20; 8 with --quick)")
    parser.add_argument("--class-max-rounds", type=int, default=None, help="rounds at most in the class leagues (default: --max-rounds)")
    parser.add_argument("--budget-minutes", type=float, default=None, help="start no league after this many minutes (each group keeps its leagues up to the first not played)")
    parser.add_argument("--hard-minutes", type=float, default=None, help="abandon every league still playing after this many minutes (counted as not played)")
    parser.add_argument("--error-max-rounds", type=int, default=None, help="rounds at most in the identical-bot leagues of the league stop (default: --max-rounds)")
    parser.add_argument("--first-look", type=int, default=5, help="first round the sequential stop of the tiers may decide (default 5: 10 units a bot)")
    parser.add_argument("--groups-rounds", type=int, default=None, help="rounds after which the groups are measured (default 15: the teacher's 900 games; 7 with --quick)")
    parser.add_argument("--twins-leagues", type=int, default=None, help="leagues of the twins scenario (default 10; 2 with --quick)")
    parser.add_argument("--twins-max-rounds", type=int, default=None, help="rounds at most in the twins leagues (default 500; 20 with --quick)")
    args = parser.parse_args()
    leagues = args.leagues or (2 if args.quick else 6)
    two_leagues = args.two_leagues or leagues
    fresh_leagues = min(args.fresh_leagues or leagues, leagues)
    stop_leagues = args.stop_leagues or min(leagues, 3)
    error_leagues = args.error_leagues or stop_leagues
    class_leagues = args.class_leagues or min(stop_leagues, 2)
    lesson_leagues = args.lesson_leagues or leagues
    lesson_rounds = args.lesson_rounds
    groups_rounds = args.groups_rounds or (7 if args.quick else 15)
    twins_leagues = args.twins_leagues or (2 if args.quick else 10)
    twins_max = args.twins_max_rounds or (20 if args.quick else 500)
    rounds = args.rounds or (3 if args.quick else 6)
    max_rounds = args.max_rounds or (8 if args.quick else 20)
    class_max = args.class_max_rounds or max_rounds
    error_max = args.error_max_rounds or max_rounds
    rate, rate_source = b4_rate()
    began = time.perf_counter()
    figures: list[Figure] = []
    extra: dict[str, object] = {
        "leagues": leagues, "lesson_leagues": lesson_leagues, "lesson_rounds": lesson_rounds, "groups_rounds": groups_rounds,
        "twins_leagues": twins_leagues, "twins_max_rounds": twins_max, "two_leagues": two_leagues, "stop_leagues": stop_leagues, "error_leagues": error_leagues, "class_leagues": class_leagues,
        "rounds": rounds, "max_rounds": max_rounds, "class_max_rounds": class_max, "error_max_rounds": error_max, "first_look": args.first_look, "workers": args.workers,
        "b4_games_per_s": round(rate, 2), "b4_source": rate_source,
    }

    # every league in one pool: the cheap coverage leagues first, then the stop leagues with
    # the groups interleaved by the share of their leagues started, so that a time budget
    # (--budget-minutes) cuts every group alike; a group keeps its leagues in seed order up
    # to the first one not played
    first = args.first_look
    groups: dict[str, list[Task]] = {
        "identical": [Task("identical", 1000 + i, snapshot=rounds, late=groups_rounds) for i in range(leagues)],
        "tiers": [Task("tiers", 2000 + i, snapshot=rounds, late=groups_rounds) for i in range(leagues)],
        "fresh": [Task("tiers", 2000 + i, fresh=True, snapshot=rounds) for i in range(fresh_leagues)],
        "lesson": [Task("lesson", 8000 + i, snapshot=lesson_rounds, late=groups_rounds) for i in range(lesson_leagues)],
        "twins": [Task("twins", 9000 + i, twins=True, max_rounds=twins_max) for i in range(twins_leagues)],
        "class_stop": [Task("class", 4000 + i, stop=True, max_rounds=class_max, first_look=first) for i in range(class_leagues)],
        "identical_stop": [Task("identical", 5000 + i, stop=True, max_rounds=error_max, top_stop=True) for i in range(error_leagues)],
        "tiers_stop": [
            Task("tiers", 6000 + i, stop=True, max_rounds=max_rounds, first_look=first, top_stop=i < error_leagues) for i in range(stop_leagues)
        ],
        "two_stop": [Task("two", 3000 + i, stop=True, max_rounds=max_rounds, first_look=first) for i in range(two_leagues)],
    }
    order = [(key, i) for i in range(max(leagues, lesson_leagues)) for key in ("identical", "tiers", "fresh", "lesson") if i < len(groups[key])]
    stop_groups = ("twins", "class_stop", "identical_stop", "tiers_stop", "two_stop")
    order += sorted(((key, i) for key in stop_groups for i in range(len(groups[key]))), key=lambda k: (k[1] / len(groups[k[0]]), stop_groups.index(k[0])))
    deadline = None if args.budget_minutes is None else time.monotonic() + 60 * args.budget_minutes
    if args.hard_minutes is not None:
        stop_by = time.time() + 60 * args.hard_minutes
        groups = {key: [Task(**{**task.__dict__, "stop_by": stop_by}) for task in tasks] for key, tasks in groups.items()}
    flat = run_all([groups[key][i] for key, i in order], args.workers, deadline)
    played: dict[str, list[Outcome | None]] = {key: [None] * len(tasks) for key, tasks in groups.items()}
    for (key, i), outcome in zip(order, flat, strict=True):
        played[key][i] = outcome
    outcomes = {key: prefix(values) for key, values in played.items()}
    extra["leagues_played"] = {key: f"{len(outcomes[key])} of {len(groups[key])}" for key in groups}
    per_round = next(o for o in flat if o is not None).games_per_round
    extra["games_per_round"] = per_round
    leagues = min(len(outcomes[key]) for key in ("identical", "tiers"))
    fresh_leagues = min(len(outcomes["fresh"]), leagues)
    extra["leagues"] = leagues

    # 30 identical bots and 4 tiers after `rounds` rounds: intervals, rank sets, pairs separated
    tier_of = League(SCENARIOS["tiers"], 0).tiers
    duplicate = [o.snapshot for o in outcomes["tiers"][:leagues] if o.snapshot]
    fresh = [o.snapshot for o in outcomes["fresh"][:fresh_leagues] if o.snapshot]
    truth = {t: statistics.fmean(s.raw[b] for s in duplicate + fresh for b in tier_of if tier_of[b] == t) for t in set(tier_of.values())}
    identical = [o.snapshot for o in outcomes["identical"][:leagues] if o.snapshot]
    for key, snapshots, tiers, values, label in (
        ("identical", identical, dict.fromkeys(League(SCENARIOS["identical"], 0).tiers, 0), {0: 1.5}, "30 identical bots"),
        ("tiers", duplicate, tier_of, truth, "30 bots in 4 tiers"),
    ):
        count = len(snapshots)
        held = sum(1 for s in snapshots for b, (_, low, high) in s.strength.items() if low is not None and high is not None and low <= values[tiers[b]] <= high)
        figures.append(Figure(f"coverage_{key}", f"95% intervals of strength holding the true value, {label} ({count} leagues)", "%", [100 * held / (BOTS * count)]))
        figures.append(Figure(f"sets_{key}", f"rank sets holding every true rank at once, {label} ({count} leagues)", "%", [100 * sum(covers(s, tiers, values) for s in snapshots) / count]))
        if key == "tiers":
            pairs_figures(figures, extra, key, label, snapshots, tiers, values)
    extra["coverage_tier_points_per_game"] = {t: round(v, 3) for t, v in sorted(truth.items())}
    extra["coverage_games_per_league"] = rounds * per_round
    if fresh_leagues >= 2 and len(fresh) >= 2:
        def spread(snapshots: list[Snapshot]) -> float:
            return statistics.fmean(statistics.variance([s.raw[b] for s in snapshots]) for b in tier_of)

        figures.append(Figure("fresh_over_duplicate", f"variance of points per game: fresh deals ÷ duplicate deals (games needed; {len(fresh)} leagues each)", "×", [spread(fresh) / spread(duplicate[: len(fresh)])]))

    # the class's groups after `groups_rounds` rounds (issue 41): identical bots, 4 tiers, the lesson
    tiers_truth = truth
    for key, tiers, label in (
        ("identical", League(SCENARIOS["identical"], 0).tiers, "30 identical bots"),
        ("tiers", tier_of, "30 bots in 4 tiers"),
        ("lesson", League(SCENARIOS["lesson"], 0).tiers, "lesson, 8 strategies, 30 bots"),
    ):
        late = [o.late for o in outcomes[key] if o.late is not None]
        if late:
            values = {0: 1.5} if key == "identical" else tiers_truth if key == "tiers" else true_values(late, tiers)
            groups_figures(figures, extra, key, f"{label}, {groups_rounds} rounds ({groups_rounds * per_round} games)", late, tiers, values)

    # two equal bots at #1/#2 (issue 41): the verdict says "level" in a league long enough
    twins = outcomes["twins"]
    if twins:
        level = [o.twins_level for o in twins if o.twins_level is not None]
        figures.append(Figure("twins_level", f"{SCENARIOS['twins'].label}: leagues whose #1/#2 (the twins) were called level within {twins_max} rounds ({len(twins)} leagues)", "%", [100 * len(level) / len(twins)]))
        if level:
            figures.append(Figure("twins_level_games", f"{SCENARIOS['twins'].label}: games to the first 'level' (per league, {len(level)} that got it)", "games", [r * per_round for r in level]))
        extra["twins_ahead"] = f"{sum(o.twins_wrong for o in twins)} looks called the twins ahead, of {sum(o.twins_pair for o in twins)} looks at them"
    worded = [o for group in ("twins", "identical_stop", "tiers_stop") for o in outcomes[group] if o.words[1]]
    if worded:
        figures.append(Figure("verdict_words", f"the most games a verdict line named, ÷ the games played (bound {LESSONS}; {sum(o.words[1] for o in worded):,} lines read)", "×", [max(o.words[0] for o in worded)]))

    # the lesson: 8 strategies, 30 bots, `lesson_rounds` rounds: schedule luck, strength vs points per game
    lesson = [o.snapshot for o in outcomes["lesson"] if o.snapshot]
    if lesson:
        lesson_figures(figures, extra, lesson, lesson_rounds)

    # sequential stop vs fixed budget
    for key in ("two", "tiers", "class"):
        scenario = SCENARIOS[key]
        runs = outcomes[f"{key}_stop"]
        if not runs:
            extra[f"{key}_stopped"] = "no league played within the time budget"
            continue
        stop_tasks = groups[f"{key}_stop"][: len(runs)]
        runs, fixed, exact = fixed_budget(runs, stop_tasks, args.workers, exact=key != "class")
        count = len(runs)
        cap = stop_tasks[0].max_rounds
        stopped = [o for o in runs if o.sprt_round is not None]
        ordered = [o for o in stopped if o.sprt_ordered]
        extra[f"{key}_margin"] = scenario.margin
        extra[f"{key}_tests"] = len(League(scenario, 0).adjacent_pairs())
        extra[f"{key}_points_per_game"] = {t: round(statistics.fmean(o.tier_means[t] for o in runs), 3) for t in range(len(scenario.strengths))}
        extra[f"{key}_stopped"] = f"{len(stopped)} of {count} leagues within {cap} rounds ({len(ordered)} ordered, {len(stopped) - len(ordered)} failed on a LEVEL)"
        early = [o.early for o in runs if o.early is not None]
        extra[f"{key}_decided_before_first_look"] = (
            f"{len(early)} of {count} leagues ({sum(1 for _, ok in early if not ok)} on a LEVEL, first at round {min((r for r, _ in early), default=0)})"
        )
        label = f"{scenario.label}, margin {scenario.margin:g} pts/g"
        figures.append(Figure(f"{key}_sequential_ordered", f"{label}: leagues stopped with the tiers ordered ({count} leagues)", "%", [100 * len(ordered) / count]))
        if stopped:
            games = [o.sprt_round * per_round for o in stopped if o.sprt_round is not None]
            figures.append(Figure(f"{key}_sequential_games", f"{label}: games to the sequential stop (per league, {len(stopped)} that stopped)", "games", games))
            figures.append(Figure(f"{key}_sequential_minutes", f"{label}: the same in minutes at the B4 rate ({rate:.1f} games/s)", "min", [g / rate / 60 for g in games]))
        if fixed is not None:
            how = "" if exact else " (a league taken to stay ordered after its last round)"
            figures.append(Figure(f"{key}_fixed_games", f"{label}: fixed budget: one look orders the tiers in 95% of leagues{how}", "games", [fixed * per_round]))
            if stopped:
                figures.append(Figure(f"{key}_fixed_over_sequential", f"{label}: fixed budget ÷ median games to the sequential stop", "×", [fixed * per_round / statistics.median(games)]))
        else:
            extra[f"{key}_fixed"] = f"not reached within {cap} rounds ({cap * per_round} games)"
        if key == "class":
            # per league: the measured stop, or (cut at the cap) the games at which the smallest
            # LLR would reach the bound if it keeps growing in proportion to the games
            estimates = []
            for o in runs:
                if o.sprt_round is not None:
                    estimates.append(o.sprt_round * per_round)
                elif o.min_llr is not None and o.min_llr > 0:
                    estimates.append(math.ceil(o.rounds * o.upper / o.min_llr) * per_round)
            extra["class_estimated_leagues"] = f"{len(estimates)} of {count} (measured stops, or extrapolated from the smallest LLR at the cap)"
            if estimates:
                figures.append(Figure("class_stop_games", "class: games to the sequential stop (measured, or extrapolated from the LLR at the cap)", "games", estimates))
                figures.append(Figure("class_stop_minutes", f"class: the same in minutes at the B4 rate ({rate:.1f} games/s)", "min", [g / rate / 60 for g in estimates]))
            sd = pooled_sd(runs)
            unit_sd = statistics.fmean(o.unit_sd for o in runs)
            per_bot = 2 * (Z95 * sd / MARGIN) ** 2
            bound = per_bot * BOTS / 4
            extra["class_game_sd"] = round(sd, 3)
            extra["class_unit_sd"] = round(unit_sd, 3)
            figures.append(Figure("class_bound_games", f"class lower bound: one z-test of one pair {MARGIN:g} pts/g apart at 95% (sd {sd:.2f}/game): {per_bot:,.0f} games/bot × 30/4", "games", [bound]))
            figures.append(Figure("class_bound_minutes", f"class lower bound: the same in minutes at the B4 rate ({rate:.1f} games/s)", "min", [bound / rate / 60]))

    # the league stop as `referee run` uses it: places 1 and 3, MARGIN
    for key in ("identical", "tiers"):
        runs = [o for o, t in zip(outcomes[f"{key}_stop"], groups[f"{key}_stop"], strict=False) if t.top_stop]
        count = len(runs)
        if not count:
            continue
        for places in PLACES:
            stops = [o.league_stop[places] for o in runs if places in o.league_stop]
            wrong = sum(1 for _, ahead, bad, _ in stops if bad)
            what = "false separation (an AHEAD)" if key == "identical" else "a wrong declared order (an AHEAD not between tiers in order)"
            figures.append(Figure(f"{key}_stop{places}_wrong", f"league stop, {SCENARIOS[key].label}, places {places}: leagues stopped with {what} ({count} leagues)", "%", [100 * wrong / count]))
            if stops:
                figures.append(Figure(f"{key}_stop{places}_games", f"league stop, {SCENARIOS[key].label}, places {places}: games to the stop ({len(stops)} that stopped)", "games", [r * per_round for r, *_ in stops]))
            cap = error_max if key == "identical" else max_rounds
            extra[f"{key}_stop{places}_stopped"] = (
                f"{len(stops)} of {count} within {cap} rounds: {sum(1 for _, a, *_ in stops if a == 0)} all LEVEL, "
                f"{sum(1 for _, a, *_ in stops if a)} with an AHEAD ({wrong} wrong); {sum(1 for r, *_ in stops if r <= 2)} after round 1 or 2; "
                f"{sum(1 for *_, level in stops if level)} with a LEVEL between different tiers"
            )
    extra["seconds"] = round(time.perf_counter() - began, 1)
    common.write_json(args.json, "B7 standings", figures, **extra)


if __name__ == "__main__":
    main()
