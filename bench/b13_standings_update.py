"""B13 standings kept as games finish: what a finished game costs the league's standings
(:class:`referee.standings.running.RunningStandings`, as ``referee run`` keeps them), at
game 100 and at game 10,000 of a 30-bot league at tables of 4; and what a look at the
standings costs (the live display's, a movement round's), against recomputing them from
every game as before.

The games are synthetic records (no engine, no processes): tables of 4 drawn from 30
bots, each deal played in its 4 rotations, 80 decisions a game with their times, a timeout
now and then; they arrive a little out of canonical order (two deals' 8 games shuffled, as
concurrent tables finish). Figures:

- **per game**: the median µs of ``add(record)`` (what the league does as a game is stored)
  over games 100–199 and 9,900–9,999, and their ratio (the median, as the machine's other
  load and Python's garbage collector pause single games; the means are shown too);
- **rating**: the mean µs per game of bringing the ratings up to date (``rate()`` after
  every 60 games, a movement round of 30 bots), over the same two stretches;
- **look**: one ``standings()`` at game 100 and 10,000 (the fit, rank sets, verdicts);
- **from scratch**: ``compute_standings`` of the 10,000 games' summaries (what every look
  cost before, without even reading the store).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator

import common
from common import Figure

BOTS = 30
GAMES = 10_000
MARKS = (100, 9_900)  # the first game of each measured stretch
STRETCH = 100
ROUND = 60  # games between looks


def records(count: int, seed: int) -> Iterator[object]:
    """``count`` game records, made as they are asked for (the league keeps no record)."""
    from referee.game.records import ActionRecord, FaultRecord, GameRecord

    rng = random.Random(seed)
    names = [f"student-{index:02d}" for index in range(BOTS)]
    out: list[GameRecord] = []
    deal = made = 0
    while made < count:
        out = []
        table = tuple(rng.sample(names, 4))
        order = list(range(1, 5))
        rng.shuffle(order)
        for rotation in range(4):
            seats = table[rotation:] + table[:rotation]
            placements = tuple(order[(seat + rotation) % 4] for seat in range(4))
            actions = [ActionRecord(turn % 4, "play", "AS", rng.uniform(0.5, 12.0)) for turn in range(80)]
            faults = [FaultRecord("timeout", 2, seats[2], 40, "no answer within 1000 ms")] if rng.random() < 0.05 else []
            out.append(GameRecord(
                game_id=f"m{deal:05d}-r{rotation}", league="bench", fixture=deal * 4 + rotation, table=table, deal=deal,
                rotation=rotation, seats=seats, rules={}, seed=deal, first_dealer=0, decks=[], actions=actions, faults=faults,
                placements=placements, winner=placements.index(1), knocked_out_round=(None,) * 4, forfeited=(False,) * 4,
            ))  # fmt: skip
        deal += 1
        if deal % 2 == 0:  # concurrent tables finish out of order: two deals' games shuffled
            out = out[: count - made]
            rng.shuffle(out)
            made += len(out)
            yield from out
            out = []


def one(seed: int) -> dict[str, float]:
    from referee.standings.running import RunningStandings
    from referee.standings.table import PlayedGame, compute_standings

    summaries = []
    running = RunningStandings([f"student-{index:02d}" for index in range(BOTS)])
    clock = time.perf_counter
    add_s: dict[int, list[float]] = {mark: [] for mark in MARKS}
    rate_s = {mark: 0.0 for mark in MARKS}
    out: dict[str, float] = {}
    for index, game in enumerate(records(GAMES, seed)):
        summaries.append(PlayedGame.of(game))  # type: ignore[arg-type]
        mark = next((mark for mark in MARKS if mark <= index < mark + STRETCH), None)
        began = clock()
        running.add(game)  # type: ignore[arg-type]
        spent = clock() - began
        if mark is not None:
            add_s[mark].append(spent)
        if (index + 1) % ROUND == 0 or index + 1 in (MARKS[0] + STRETCH, MARKS[1] + STRETCH):
            began = clock()
            running.rate()
            spent = clock() - began
            if mark is not None or index + 1 in (MARKS[0] + STRETCH, MARKS[1] + STRETCH):
                key = mark if mark is not None else index + 1 - STRETCH
                rate_s[key] += spent
        if index + 1 in (100, GAMES):
            began = clock()
            running.standings()
            out[f"look_{index + 1}"] = (clock() - began) * 1e3
    began = clock()
    fresh = compute_standings(summaries, bots=[f"student-{index:02d}" for index in range(BOTS)])
    out["scratch"] = (clock() - began) * 1e3
    assert fresh.to_json() == running.standings().to_json(), "kept standings differ from those recomputed"
    for mark in MARKS:
        out[f"add_{mark}"] = statistics.median(add_s[mark]) * 1e6
        out[f"add_mean_{mark}"] = statistics.fmean(add_s[mark]) * 1e6
        out[f"rate_{mark}"] = rate_s[mark] / STRETCH * 1e6
    return out


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    runs = [one(seed) for seed in range(args.reps)]

    def values(key: str) -> list[float]:
        return [run[key] for run in runs]

    figures = [
        Figure("add_100", "per game: add(record) at games 100–199 (median)", "µs", values("add_100")),
        Figure("add_10000", "per game: add(record) at games 9,900–9,999 (median)", "µs", values("add_9900")),
        Figure("ratio", "per game at 10,000 ÷ at 100 (medians)", "×", common.ratio_values(values("add_9900"), values("add_100"))),
        Figure("add_mean_100", "per game: add(record) at games 100–199 (mean, pauses included)", "µs", values("add_mean_100")),
        Figure("add_mean_10000", "per game: add(record) at games 9,900–9,999 (mean, pauses included)", "µs", values("add_mean_9900")),
        Figure("rate_100", "rating brought up to date, per game, at games 100–199", "µs", values("rate_100")),
        Figure("rate_10000", "rating brought up to date, per game, at games 9,900–9,999", "µs", values("rate_9900")),
        Figure("look_100", "a look (standings()) at game 100", "ms", values("look_100")),
        Figure("look_10000", "a look (standings()) at game 10,000", "ms", values(f"look_{GAMES}")),
        Figure("scratch_10000", "recomputed from the 10,000 games' summaries (before: every look)", "ms", values("scratch")),
    ]
    common.write_json(args.json, "B13 standings kept as games finish", figures, games=GAMES, bots=BOTS)


if __name__ == "__main__":
    main()
