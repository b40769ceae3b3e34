"""B7 standings: simulated class-size leagues (the engine only: no gRPC, no processes) to
check the honesty of the standings and measure what the movement format costs.

Bots are seeded strategies of known strength: at each decision a bot of strength s plays
the sample heuristic bot's choice with probability s, else a uniformly random legal
action. Leagues use the movement format at tables of 4 (:mod:`referee.movement`), and the
statistics of :mod:`referee.uncertainty` (what the standings print), computed from each
bot's units (a deal's rotations at one table).

Figures:

- **coverage**: share of the bots' 95% intervals of points per game that hold the true
  value: 1.5 for identical bots; for tiers, the tier's mean over all simulated leagues;
- **tied**: share of leagues of identical bots where no two bots are separated (every
  rank range is 1–30);
- **efficiency**: variance of a bot's points per game across leagues with fresh random
  deals (no rotation) over that with duplicate deals, at equal games: how many times the
  games fresh deals need for the same precision;
- **sequential stop vs fixed budget**: leagues of tiers are played round by round; the
  sequential stop ends at the first round where every bot is separated from every bot of
  the next tier at the corrected confidence of that look; the fixed budget is the fewest
  rounds after which the tiers are ordered (one look, 95%) in 95% of leagues;
- **class figure**: the same with 30 bots in tiers whose points per game are ~0.1 apart,
  in games and in minutes at the B4 rate.

    python bench/b7_standings.py                  # small (what make bench runs): 4 leagues per figure
    python bench/b7_standings.py --leagues 200    # the full figures (hours on a loaded 2-core machine)
    python bench/run.py --only B7 --b7-leagues 200
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import common
from common import Figure

sys.path.insert(0, str(common.ROOT / "sample_bots" / "python"))

from heuristic_bot import HeuristicBot  # noqa: E402
from scipy import stats as scipy_stats  # noqa: E402

from referee.cards import Card  # noqa: E402
from referee.game import Game  # noqa: E402
from referee.movement import movement_rounds  # noqa: E402
from referee.rules import Rules  # noqa: E402
from referee.schedule import Fixture, deal_hash  # noqa: E402
from referee.uncertainty import CONFIDENCE, Interval, interval, look_confidence, pairs_of, separated  # noqa: E402
from referee.views import Action, ChooseTrump, DecisionKind, Pass, Play  # noqa: E402

B4_GAMES_PER_S = 10.6  # bench/results.json B4, concurrency 4, median (instant bots)
RULES = Rules()
HEURISTIC = HeuristicBot()


def policy(strength: float, rng: random.Random) -> Callable[[object], Action]:
    def decide(view: object) -> Action:
        legal = view.legal  # type: ignore[attr-defined]
        if rng.random() >= strength:
            return rng.choice(legal)
        if view.decision is DecisionKind.CHOOSE_TRUMP:  # type: ignore[attr-defined]
            return ChooseTrump(HEURISTIC.choose_trump(view))  # type: ignore[arg-type]
        card: Card | None = HEURISTIC.play(view)  # type: ignore[arg-type]
        return Pass() if card is None else Play(card)

    return decide


def play(fixture: Fixture, seed: int, deciders: dict[str, Callable[[object], Action]]) -> tuple[int, ...]:
    """The placements of one game of ``fixture`` dealt from ``seed``."""
    game = Game(len(fixture.seats), RULES, seed, game_id=fixture.game_id, first_dealer=fixture.first_dealer)
    while not game.over:
        seat = game.to_act
        assert seat is not None
        game.apply(seat, deciders[fixture.seats[seat]](game.view(seat)))
    assert game.outcome is not None
    return tuple(game.outcome.placements)


@dataclass
class League:
    """One simulated league, played round by round; ``units[bot][unit] = [points, games]``."""

    strengths: dict[str, float]
    seed: int
    fresh: bool = False

    def __post_init__(self) -> None:
        self.deciders = {name: policy(s, random.Random(deal_hash(self.seed, "bot", name))) for name, s in self.strengths.items()}
        self.rounds = movement_rounds(sorted(self.strengths), 4, 1, self.seed)
        self.units: dict[str, dict[object, list[float]]] = {name: {} for name in self.strengths}
        self.games = 0

    def play_round(self) -> None:
        for fixture in next(self.rounds):
            seed = deal_hash(fixture.seed, fixture.rotation) if self.fresh else fixture.seed
            unit = (fixture.seed, fixture.rotation) if self.fresh else fixture.seed
            placements = play(fixture, seed, self.deciders)
            for seat, bot in enumerate(fixture.seats):
                points = sum(1.0 if placements[seat] < theirs else 0.5 if placements[seat] == theirs else 0.0
                             for other, theirs in enumerate(placements) if other != seat)
                tally = self.units[bot].setdefault(unit, [0.0, 0])
                tally[0] += points
                tally[1] += 1
            self.games += 1

    def intervals(self, confidence: float = CONFIDENCE) -> dict[str, Interval]:
        out = {}
        for bot, units in self.units.items():
            points = sum(p for p, _ in units.values())
            games = sum(n for _, n in units.values())
            out[bot] = interval(points / games, [p / n for p, n in units.values()], confidence)
        return out


def tiers_ordered(league: League, tiers: dict[str, int], confidence: float) -> bool:
    """Every bot separated from every bot of the next tier down (tier 0 is the strongest)."""
    intervals = league.intervals(confidence)
    pairs = pairs_of(len(intervals))
    for a, tier_a in tiers.items():
        for b, tier_b in tiers.items():
            if tier_b == tier_a + 1 and not separated(intervals[a], intervals[b], pairs, confidence):
                return False
    return True


def tiered(bots: int, strengths: Sequence[float]) -> tuple[dict[str, float], dict[str, int]]:
    names = {f"t{i % len(strengths)}-{i:02d}": i % len(strengths) for i in range(bots)}
    return {name: strengths[tier] for name, tier in names.items()}, names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="ignored (one pass: the leagues are the repetitions)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="few, small leagues (make bench)")
    parser.add_argument("--sandbox", default="none", help="ignored (no processes)")
    parser.add_argument("--leagues", type=int, default=None, help="leagues per figure (default 4; 2 with --quick; 200 for the full figures)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of the coverage and efficiency leagues (default 6; 3 with --quick)")
    parser.add_argument("--max-rounds", type=int, default=None, help="rounds at most in the stop leagues (default 20; 8 with --quick)")
    args = parser.parse_args()
    leagues = args.leagues or (2 if args.quick else 4)
    rounds = args.rounds or (3 if args.quick else 6)
    max_rounds = args.max_rounds or (8 if args.quick else 20)
    began = time.perf_counter()
    figures: list[Figure] = []
    extra: dict[str, object] = {"leagues": leagues, "rounds": rounds, "max_rounds": max_rounds}

    # coverage and ties: 30 identical bots
    identical = {f"same-{i:02d}": 0.5 for i in range(30)}
    covered = total = tied = 0
    for number in range(leagues):
        league = League(identical, seed=1000 + number)
        for _ in range(rounds):
            league.play_round()
        intervals = league.intervals()
        covered += sum(1 for i in intervals.values() if i.low is not None and i.low <= 1.5 <= (i.high or 0))
        total += len(intervals)
        pairs = pairs_of(len(intervals))
        tied += not any(separated(a, b, pairs) for a in intervals.values() for b in intervals.values() if a is not b)
    figures.append(Figure("coverage_identical", "95% intervals holding the true value, 30 identical bots", "%", [100 * covered / total]))
    figures.append(Figure("tied_identical", "leagues of 30 identical bots shown tied (no pair separated)", "%", [100 * tied / leagues]))
    games_per_league = league.games

    # coverage with tiers, and efficiency: duplicate vs fresh deals
    strengths, tiers = tiered(30, (0.9, 0.6, 0.3, 0.0))
    results: dict[bool, list[dict[str, Interval]]] = {False: [], True: []}
    for fresh in (False, True):
        for number in range(leagues):
            league = League(strengths, seed=2000 + number, fresh=fresh)
            for _ in range(rounds):
                league.play_round()
            results[fresh].append(league.intervals())
    truth = {t: statistics.fmean(i[b].mean for i in results[False] + results[True] for b in tiers if tiers[b] == t) for t in set(tiers.values())}
    hits = sum(1 for i in results[False] for b, v in i.items() if v.low is not None and v.low <= truth[tiers[b]] <= (v.high or 0))
    figures.append(Figure("coverage_tiers", "95% intervals holding the tier's mean, 30 bots in 4 tiers", "%", [100 * hits / (30 * leagues)]))
    extra["tier_points_per_game"] = {t: round(v, 3) for t, v in sorted(truth.items())}

    def spread(fresh: bool) -> float:
        return statistics.fmean(statistics.variance([i[b].mean for i in results[fresh]]) for b in tiers)

    figures.append(Figure("fresh_over_duplicate", "variance of points per game: fresh deals ÷ duplicate deals (games needed)", "×", [spread(True) / spread(False)]))

    # sequential stop vs fixed budget, and the class figure
    for key, label, tier_strengths in (
        ("two", "2 tiers (heuristic / random)", (1.0, 0.0)),
        ("tiers", "4 tiers (strength 0.9/0.6/0.3/0)", (0.9, 0.6, 0.3, 0.0)),
        ("class", "class: 4 tiers ~0.1 points/game apart (strength 0.6/0.5/0.4/0.3)", (0.6, 0.5, 0.4, 0.3)),
    ):
        strengths, tiers = tiered(30, tier_strengths)
        stops: list[int | None] = []
        ordered_at: list[list[bool]] = []
        levels = len(tier_strengths)
        points: dict[int, list[float]] = {t: [] for t in range(levels)}
        predicted: list[int | None] = []
        for number in range(leagues):
            league = League(strengths, seed=3000 + number)
            stop = None
            flags = []
            for look in range(1, max_rounds + 1):
                league.play_round()
                flags.append(tiers_ordered(league, tiers, CONFIDENCE))
                if stop is None and tiers_ordered(league, tiers, look_confidence(look)):
                    stop = look
            final = league.intervals()
            for bot, value in final.items():
                points[tiers[bot]].append(value.mean)
            # games for a typical pair of adjacent tiers to separate: the corrected threshold
            # with this league's mean standard error, against the smallest gap of tier means
            means = [statistics.fmean(final[b].mean for b in tiers if tiers[b] == t) for t in range(levels)]
            gap = min(means[t] - means[t + 1] for t in range(levels - 1))
            sem = statistics.fmean(v.sem or 0.0 for v in final.values())
            units = min(v.units for v in final.values())
            threshold = float(scipy_stats.t.ppf(1 - (1 - CONFIDENCE) / pairs_of(30) / 2, units - 1)) * math.sqrt(2) * sem
            predicted.append(None if gap <= 0 else math.ceil(league.games * (threshold / gap) ** 2))
            stops.append(stop)
            ordered_at.append(flags)
        per_round = league.games // max_rounds
        fixed = next((r + 1 for r in range(max_rounds) if sum(f[r] for f in ordered_at) >= 0.95 * leagues), None)
        stopped = [s for s in stops if s is not None]
        extra[f"{key}_points_per_game"] = {t: round(statistics.fmean(v), 3) for t, v in points.items()}
        extra[f"{key}_stopped"] = f"{len(stopped)} of {leagues} leagues within {max_rounds} rounds ({max_rounds * per_round} games)"
        if stopped:
            median = statistics.median(stopped) * per_round
            figures.append(Figure(f"{key}_sequential_games", f"{label}: games to the sequential stop (median of the leagues that stopped)", "games", [median]))
            figures.append(Figure(f"{key}_sequential_minutes", f"{label}: the same in minutes at the B4 rate ({B4_GAMES_PER_S} games/s)", "min", [median / B4_GAMES_PER_S / 60]))
        estimates = [p for p in predicted if p is not None]
        if estimates:
            figures.append(Figure(f"{key}_predicted_games", f"{label}: games for a typical adjacent-tier pair to separate, estimated (median)", "games", [statistics.median(estimates)]))
            figures.append(Figure(f"{key}_predicted_minutes", f"{label}: the same in minutes at the B4 rate", "min", [statistics.median(estimates) / B4_GAMES_PER_S / 60]))
        if fixed is not None:
            figures.append(Figure(f"{key}_fixed_games", f"{label}: fixed budget ordering the tiers in 95% of leagues", "games", [fixed * per_round]))
        else:
            extra[f"{key}_fixed"] = f"not reached within {max_rounds} rounds"
    extra["games_per_identical_league"] = games_per_league
    extra["seconds"] = round(time.perf_counter() - began, 1)
    common.write_json(args.json, "B7 standings", figures, **extra)


if __name__ == "__main__":
    main()
