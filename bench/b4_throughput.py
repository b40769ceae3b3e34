"""B4 throughput: ``run_league`` (pool, fixtures run concurrently, every game stored in a
temporary results file) with 8 instant bots at tables of 4, at concurrency 1, 2, 4 and 8:
games/s and decisions/s, the ratios 4÷1 and 8÷4, and the fraction of decisions recorded
as timeouts with ``move_ms`` = 200 while the bots answer at once.

Throughput is taken over the steady state: from the finish of game ``3 × concurrency``
(by then the pool has started a process per seat in play) to the last game, so the bots'
start-up (~0.2 s of CPU each) is left out; the timeout fraction counts every decision.
"""

from __future__ import annotations

import os

import common
from common import Figure

CONCURRENCY = (1, 2, 4, 8)
MEASURED_GAMES = 48
MOVE_MS = 200


def league(concurrency: int, games: int, mode: str, seed: int) -> tuple[float, float, int, int, float, float]:
    """(games/s, decisions/s, decisions, timeouts, machine cores busy, referee cores) of one
    league run; the last two over the measured window."""
    import trio

    from fixtures import NullReporter, league_spec
    from referee.league.run import run_league
    from referee.results.store import ResultsStore
    from referee.schedule.make import make_fixtures

    names = [f"bot{index}" for index in range(8)]
    warmup = 3 * concurrency
    fixtures = make_fixtures(names, 4, deals=1, seed=seed)[: warmup + games]
    with common.temp_dir("kws-b4-") as tmp:
        spec = league_spec(names, tmp / "league", mode=mode, concurrency=concurrency, move_ms=MOVE_MS)
        store = ResultsStore.open(tmp / "league.sqlite", league="bench", fingerprint="bench", config_text="", resume=False)
        reporter = NullReporter()
        try:
            trio.run(run_league, spec, fixtures, store, reporter)
        finally:
            store.close()
    finished = reporter.finished
    window = finished[-1] - finished[warmup - 1]
    measured = len(finished) - warmup
    decisions = sum(reporter.decisions[warmup:])
    busy = (reporter.busy[-1] - reporter.busy[warmup - 1]) / window
    referee = (reporter.referee_cpu[-1] - reporter.referee_cpu[warmup - 1]) / window
    return measured / window, decisions / window, sum(reporter.decisions), reporter.timeouts, busy, referee


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    games = 12 if args.quick else MEASURED_GAMES
    games_rate: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    decision_rate: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    busy: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    referee_cores: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    timeouts: list[float] = []
    for rep in range(args.reps):
        total = late = 0
        for concurrency in CONCURRENCY:
            rate, drate, decisions, timed_out, cores, referee = league(concurrency, games, args.sandbox, seed=rep)
            busy[concurrency].append(cores)
            referee_cores[concurrency].append(referee)
            games_rate[concurrency].append(rate)
            decision_rate[concurrency].append(drate)
            total += decisions
            late += timed_out
        timeouts.append(late / total)
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
    common.write_json(args.json, "B4 throughput", figures, measured_games=games, move_ms=MOVE_MS, sandbox=args.sandbox)


if __name__ == "__main__":
    main()
