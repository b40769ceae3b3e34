"""B4 throughput: ``run_league`` (pool, fixtures run concurrently, every game stored in a
temporary results file) with 8 instant bots at tables of 4, at concurrency 1, 2, 4 and 8:
games/s and decisions/s, the ratios 4÷1 and 8÷4, and the fraction of decisions recorded
as timeouts with ``move_ms`` = 200 while the bots answer at once.

Throughput is taken over the steady state: from the first finish after both game
``3 × concurrency`` and the last bot process start (a bot plays each rotation of a deal on
a process of its own, docs/design.md §6, so processes keep starting until every bot has
one per rotation, and per table it sits at at once) to the last game, so the bots'
start-up (~0.2 s of CPU each) is left out; the timeout fraction counts every decision.
``WARMUP`` games are played before the ``MEASURED_GAMES``, enough for the last start to
fall before them at every concurrency.

Then the cost of those starts: a whole league (all 280 games of the 8 bots, every
rotation) at concurrency 4, from its start to its last game: games/s with every start
included, and the bot processes started per game.
"""

from __future__ import annotations

import os
import time

import common
from common import Figure

CONCURRENCY = (1, 2, 4, 8)
MEASURED_GAMES = 48
WARMUP = 80  # games before the measured ones: the last process starts within them (at 8: about game 70)
MOVE_MS = 200
WHOLE_LEAGUE_CONCURRENCY = 4


def league(concurrency: int, games: int | None, mode: str, seed: int) -> tuple[float, float, int, int, float, float, int, int, float]:
    """One league run: (steady games/s, steady decisions/s, decisions, timeouts, machine
    cores busy, referee cores, processes started, games, games/s from the start) ; the
    steady figures over the measured window (see the module doc). ``games``: the first
    ``WARMUP + games`` fixtures; None: the whole league."""
    import trio

    from fixtures import NullReporter, league_spec
    from referee.league import pool as pool_module
    from referee.league.run import run_league
    from referee.results.store import ResultsStore
    from referee.schedule.make import make_fixtures

    starts: list[float] = []
    start = pool_module.BotPool._start

    async def timed_start(self: pool_module.BotPool, slots: object) -> object:
        starts.append(time.perf_counter())
        return await start(self, slots)  # type: ignore[arg-type]

    names = [f"bot{index}" for index in range(8)]
    fixtures = make_fixtures(names, 4, deals=1 if games is None else 2, seed=seed)
    if games is not None:
        fixtures = fixtures[: WARMUP + games]
    pool_module.BotPool._start = timed_start  # type: ignore[method-assign,assignment]
    try:
        with common.temp_dir("kws-b4-") as tmp:
            spec = league_spec(names, tmp / "league", mode=mode, concurrency=concurrency, move_ms=MOVE_MS)
            store = ResultsStore.open(tmp / "league.sqlite", league="bench", fingerprint="bench", config_text="", resume=False)
            reporter = NullReporter()
            began = time.perf_counter()
            try:
                trio.run(run_league, spec, fixtures, store, reporter)
            finally:
                store.close()
    finally:
        pool_module.BotPool._start = start  # type: ignore[method-assign]
    finished = reporter.finished
    first = max(3 * concurrency - 1, next((i for i, at in enumerate(finished) if at > starts[-1]), len(finished) - 2))
    first = min(first, len(finished) - 2)
    window = finished[-1] - finished[first]
    measured = len(finished) - 1 - first
    decisions = sum(reporter.decisions[first + 1 :])
    busy = (reporter.busy[-1] - reporter.busy[first]) / window
    referee = (reporter.referee_cpu[-1] - reporter.referee_cpu[first]) / window
    whole = len(finished) / (finished[-1] - began)
    return measured / window, decisions / window, sum(reporter.decisions), reporter.timeouts, busy, referee, len(starts), len(finished), whole


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    games = 12 if args.quick else MEASURED_GAMES
    games_rate: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    decision_rate: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    busy: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    referee_cores: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    timeouts: list[float] = []
    whole_rate: list[float] = []
    starts_per_game: list[float] = []
    for rep in range(args.reps):
        total = late = 0
        for concurrency in CONCURRENCY:
            rate, drate, decisions, timed_out, cores, referee, _starts, _games, _whole = league(concurrency, games, args.sandbox, seed=rep)
            busy[concurrency].append(cores)
            referee_cores[concurrency].append(referee)
            games_rate[concurrency].append(rate)
            decision_rate[concurrency].append(drate)
            total += decisions
            late += timed_out
        timeouts.append(late / total)
        if not args.quick:
            *_, started, played, whole = league(WHOLE_LEAGUE_CONCURRENCY, None, args.sandbox, seed=rep)
            whole_rate.append(whole)
            starts_per_game.append(started / played)
    figures: list[Figure] = []
    for concurrency in CONCURRENCY:
        figures.append(Figure(f"games_c{concurrency}", f"concurrency {concurrency}: games/s", "games/s", games_rate[concurrency]))
        figures.append(Figure(f"decisions_c{concurrency}", f"concurrency {concurrency}: decisions/s", "decisions/s", decision_rate[concurrency]))
        figures.append(Figure(f"busy_c{concurrency}", f"concurrency {concurrency}: machine CPU busy (of {os.cpu_count()} cores)", "cores", busy[concurrency]))
        figures.append(Figure(f"referee_c{concurrency}", f"concurrency {concurrency}: of which the referee process", "cores", referee_cores[concurrency]))
    cores = os.cpu_count() or 1
    figures += [
        Figure("ceiling", "ceiling of 4 ÷ 1 if CPU per decision stayed as at 1: cores ÷ busy at 1", "×", [cores / value for value in busy[1]]),
        Figure("ratio_4_1", "games/s at 4 ÷ at 1", "×", common.ratio_values(games_rate[4], games_rate[1])),
        Figure("ratio_8_4", "games/s at 8 ÷ at 4", "×", common.ratio_values(games_rate[8], games_rate[4])),
        Figure("timeouts", f"decisions recorded as timeouts (move_ms = {MOVE_MS})", "", timeouts),
    ]
    if whole_rate:
        figures += [
            Figure("whole_games", f"whole league (280 games, every rotation), concurrency {WHOLE_LEAGUE_CONCURRENCY}: games/s, starts included", "games/s", whole_rate),
            Figure("whole_starts", "whole league: bot processes started per game", "", starts_per_game),
        ]
    common.write_json(args.json, "B4 throughput", figures, measured_games=games, warmup=WARMUP, move_ms=MOVE_MS, sandbox=args.sandbox)


if __name__ == "__main__":
    main()
