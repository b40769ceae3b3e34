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

The bot processes started inside the window are counted (0 expected: the window starts
after the last start).

**The live display.** At concurrency 4, ``LIVE_GAMES`` measured games (a window of several
seconds: the display redraws once a second) with the null reporter, then with the live
display ``referee run`` shows (:class:`referee.report.live.LiveReporter`, standings and
all, drawn to a 160 x 50 terminal that goes nowhere): games/s and the referee's CPU per
decision (the process's CPU time over the window, the display's thread included), and
their ratios.

Then the cost of those starts: a whole league (all 280 games of the 8 bots, every
rotation) at concurrency 4, from its start to its last game: games/s with every start
included, and the bot processes started per game.

**Two trees** (``--base-tree PATH``, ``bench/run.py --only B4T --base-tree PATH``): the
working tree and another checkout (e.g. ``git worktree add`` of the base commit, with its
own ``.venv``) run interleaved, each league in a process of its own on its tree's code and
bench bots (``KWS_BENCH_TREE``): concurrency 4, ``LIVE_GAMES`` games, the null reporter
and the live display; games/s, referee CPU per decision and the ratios working ÷ base.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import common
from common import Figure

CONCURRENCY = (1, 2, 4, 8)
MEASURED_GAMES = 48
WARMUP = 80  # games before the measured ones: the last process starts within them (at 8: about game 70)
MOVE_MS = 200
WHOLE_LEAGUE_CONCURRENCY = 4
LIVE_GAMES, LIVE_GAMES_QUICK = 160, 80  # measured games with the live display (it redraws once a second)


@dataclass
class Run:
    """One league run: the steady figures over the measured window (see the module doc),
    then the whole run's."""

    games_per_s: float
    decisions_per_s: float
    busy: float  # machine cores busy
    referee: float  # cores of the referee process
    referee_us: float  # referee CPU per decision, µs
    starts_in_window: int  # bot processes started inside the window
    decisions: int  # every decision of the run
    timeouts: int
    starts: int
    games: int
    whole_games_per_s: float  # from the start


def live_reporter(null: object, store: object, spec: object, games: int) -> tuple[object, AbstractContextManager[object]]:
    """The live display ``referee run`` shows (standings and all), drawn on a terminal of
    160 x 50 that goes nowhere, around ``null``; with the standings kept as ``referee run``
    keeps them where the tree has them (:class:`referee.cli.setup.StoreStandings`), else
    recomputed from the store."""
    from rich.console import Console

    from referee.league.progress import Plan, league_progress
    from referee.report.live import LiveReporter

    began = time.monotonic()
    console = Console(file=open(os.devnull, "w"), force_terminal=True, width=160, height=50, color_system="standard")  # noqa: SIM115

    def progress(done: int) -> object:
        elapsed = time.monotonic() - began
        return league_progress(Plan(games=games), done=done, rounds_started=0, elapsed_s=elapsed, rate=done / elapsed if done else None, state="running")

    try:
        from referee.cli.setup import FeedStandings, StoreStandings  # type: ignore[attr-defined]
    except ImportError:
        from referee.cli.setup import store_standings

        live = LiveReporter(console, progress, 0, lambda: store_standings(store, spec))  # type: ignore[arg-type]
        return Tee(live, null), live
    kept = StoreStandings(store, spec)
    live = LiveReporter(console, progress, 0, kept)  # type: ignore[arg-type]
    return FeedStandings(Tee(live, null), kept), live


class Tee:
    """A league Reporter telling two."""

    def __init__(self, *reporters: Any) -> None:
        self.reporters = reporters

    def game_started(self, fixture: object) -> None:
        for reporter in self.reporters:
            reporter.game_started(fixture)

    def game_finished(self, record: object) -> None:
        for reporter in self.reporters:
            reporter.game_finished(record)


def league(concurrency: int, games: int | None, mode: str, seed: int, live: bool = False, kind: str = "instant") -> Run:
    """One league run (:class:`Run`). ``games``: the first ``WARMUP + games`` fixtures;
    None: the whole league. ``live``: the live display on (else a null reporter).
    ``kind``: the bots (``fixtures.bot_entry``)."""
    import trio

    from fixtures import NullReporter, league_spec
    from referee.league import pool as pool_module
    from referee.league.run import run_league
    from referee.results.store import ResultsStore
    from referee.schedule.make import make_fixtures

    starts: list[float] = []
    start = pool_module.BotPool._start

    async def timed_start(self: pool_module.BotPool, *args: Any, **kwargs: Any) -> object:
        starts.append(time.perf_counter())
        return await start(self, *args, **kwargs)

    names = [f"bot{index}" for index in range(8)]
    fixtures = make_fixtures(names, 4, deals=1 if games is None else 2, seed=seed)
    if games is not None:
        fixtures = fixtures[: WARMUP + games]
    pool_module.BotPool._start = timed_start  # type: ignore[method-assign,assignment]
    try:
        with common.temp_dir("kws-b4-") as tmp:
            spec = league_spec(names, tmp / "league", mode=mode, concurrency=concurrency, move_ms=MOVE_MS, kind=kind)
            store = ResultsStore.open(tmp / "league.sqlite", league="bench", fingerprint="bench", config_text="", resume=False)
            reporter = NullReporter()
            told, display = live_reporter(reporter, store, spec, len(fixtures)) if live else (reporter, nullcontext())
            began = time.perf_counter()
            try:
                with display:
                    trio.run(run_league, spec, fixtures, store, told)
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
    inside = sum(1 for at in starts if at > finished[first])
    referee_us = (reporter.referee_cpu[-1] - reporter.referee_cpu[first]) / decisions * 1e6
    return Run(measured / window, decisions / window, busy, referee, referee_us, inside, sum(reporter.decisions), reporter.timeouts, len(starts), len(finished), whole)


def child_league(tree: Path, python: Path, concurrency: int, games: int, mode: str, seed: int, live: bool, kind: str) -> Run:
    """:func:`league` run by ``python`` on the referee of ``tree`` (a process of its own)."""
    task = json.dumps({"concurrency": concurrency, "games": games, "mode": mode, "seed": seed, "live": live, "kind": kind})
    env = {**os.environ, "KWS_BENCH_TREE": str(tree), "GRPC_VERBOSITY": "ERROR"}
    done = subprocess.run([str(python), __file__, "--child", task], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the league on {tree} failed:\n{done.stderr[-2000:]}")
    return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def two_trees(args: Any, games: int) -> None:
    """The working tree and ``--base-tree`` interleaved (which goes first alternates),
    concurrency 4, the null reporter and the live display: games/s, referee CPU per
    decision, and the ratios working ÷ base within each repetition."""
    trees = {"base": Path(args.base_tree).resolve(), "tree": common.ROOT}
    pythons = {"base": Path(args.base_python or trees["base"] / ".venv" / "bin" / "python"), "tree": Path(sys.executable)}
    runs: dict[tuple[str, bool], list[Run]] = {(name, live): [] for name in trees for live in (False, True)}
    for rep in range(args.reps):
        for name in (("base", "tree") if rep % 2 == 0 else ("tree", "base")):
            for live in (False, True):
                run = child_league(trees[name], pythons[name], 4, games, args.sandbox, rep, live, args.bots)
                runs[(name, live)].append(run)
                print(f"  rep {rep} {name} {'live' if live else 'null'}: {run.games_per_s:.2f} games/s, referee {run.referee_us:.0f} µs/decision", flush=True)
    figures: list[Figure] = []
    for live in (False, True):
        shown = "live display" if live else "null reporter"
        suffix = "live" if live else "null"
        base = [run.games_per_s for run in runs[("base", live)]]
        tree = [run.games_per_s for run in runs[("tree", live)]]
        figures += [
            Figure(f"base_games_{suffix}", f"base tree, {shown}: games/s", "games/s", base),
            Figure(f"tree_games_{suffix}", f"working tree, {shown}: games/s", "games/s", tree),
            Figure(f"ratio_{suffix}", f"{shown}: games/s working ÷ base", "×", common.ratio_values(tree, base)),
            Figure(f"base_referee_us_{suffix}", f"base tree, {shown}: referee CPU per decision", "µs", [run.referee_us for run in runs[("base", live)]]),
            Figure(f"tree_referee_us_{suffix}", f"working tree, {shown}: referee CPU per decision", "µs", [run.referee_us for run in runs[("tree", live)]]),
        ]
    for name in trees:
        figures.append(Figure(
            f"{name}_live_over_null", f"{'base' if name == 'base' else 'working'} tree: referee CPU per decision, live ÷ null", "×",
            common.ratio_values([run.referee_us for run in runs[(name, True)]], [run.referee_us for run in runs[(name, False)]]),
        ))  # fmt: skip
    starts = [run.starts_in_window for key in runs for run in runs[key]]
    figures.append(Figure("starts_in_window", "bot processes started inside the window (every run)", "", [float(max(starts))]))
    common.write_json(
        args.json, "B4 two trees", figures, base_tree=str(trees["base"]), base_commit=_commit(trees["base"]), tree_commit=_commit(trees["tree"]),
        measured_games=games, warmup=WARMUP, move_ms=MOVE_MS, sandbox=args.sandbox, bots=args.bots,
    )  # fmt: skip


def _commit(tree: Path) -> str:
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip()


def main() -> None:
    if sys.argv[1:2] == ["--child"]:  # one league for a two-trees run, on the tree of KWS_BENCH_TREE
        task = json.loads(sys.argv[2])
        print(json.dumps(asdict(league(task["concurrency"], task["games"], task["mode"], task["seed"], task["live"], task.get("kind", "instant")))))
        return
    args = common.arguments(__doc__.splitlines()[0], extra=[
        (("--base-tree",), {"default": None, "help": "two trees: a checkout of the base (its own .venv) run interleaved with this one"}),
        (("--base-python",), {"default": None, "help": "two trees: the base's python (default BASE_TREE/.venv/bin/python)"}),
        (("--bots",), {"default": "instant", "choices": ("instant", "kit", "go"), "help": "two trees: the bots (instant: bench/bots/instant_bot.py; kit: the random sample on the bot kit; go: the Go sample)"}),
    ])  # fmt: skip
    games = 12 if args.quick else MEASURED_GAMES
    if args.base_tree:
        two_trees(args, LIVE_GAMES_QUICK if args.quick else LIVE_GAMES)
        return
    games_rate: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    decision_rate: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    busy: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    referee_cores: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    live_games = LIVE_GAMES_QUICK if args.quick else LIVE_GAMES
    live_rate: list[float] = []
    null_rate: list[float] = []
    live_us: list[float] = []
    null_us: list[float] = []
    inside: list[float] = []
    timeouts: list[float] = []
    whole_rate: list[float] = []
    starts_per_game: list[float] = []
    for rep in range(args.reps):
        total = late = 0
        for concurrency in CONCURRENCY:
            run = league(concurrency, games, args.sandbox, seed=rep)
            busy[concurrency].append(run.busy)
            referee_cores[concurrency].append(run.referee)
            games_rate[concurrency].append(run.games_per_s)
            decision_rate[concurrency].append(run.decisions_per_s)
            inside.append(run.starts_in_window)
            total += run.decisions
            late += run.timeouts
            if concurrency == 4:  # a longer window, the null reporter then the live display (redrawn every second)
                for live, rates, cpu in ((False, null_rate, null_us), (True, live_rate, live_us)):
                    run = league(4, live_games, args.sandbox, seed=rep, live=live)
                    rates.append(run.games_per_s)
                    cpu.append(run.referee_us)
                    inside.append(run.starts_in_window)
        timeouts.append(late / total)
        if not args.quick:
            run = league(WHOLE_LEAGUE_CONCURRENCY, None, args.sandbox, seed=rep)
            whole_rate.append(run.whole_games_per_s)
            starts_per_game.append(run.starts / run.games)
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
        Figure("null_games_c4", f"concurrency 4, {live_games} games, null reporter: games/s", "games/s", null_rate),
        Figure("live_games_c4", f"concurrency 4, {live_games} games, live display on: games/s", "games/s", live_rate),
        Figure("live_ratio_c4", "concurrency 4: games/s live display ÷ null reporter", "×", common.ratio_values(live_rate, null_rate)),
        Figure("referee_us_c4", "concurrency 4, null reporter: referee CPU per decision", "µs", null_us),
        Figure("live_referee_us_c4", "concurrency 4, live display on: referee CPU per decision", "µs", live_us),
        Figure("live_over_null_c4", "referee CPU per decision, live display ÷ null reporter", "×", common.ratio_values(live_us, null_us)),
        Figure("starts_in_window", "bot processes started inside the window (worst run)", "", [max(inside)]),
    ]
    if whole_rate:
        figures += [
            Figure("whole_games", f"whole league (280 games, every rotation), concurrency {WHOLE_LEAGUE_CONCURRENCY}: games/s, starts included", "games/s", whole_rate),
            Figure("whole_starts", "whole league: bot processes started per game", "", starts_per_game),
        ]
    common.write_json(args.json, "B4 throughput", figures, measured_games=games, warmup=WARMUP, move_ms=MOVE_MS, sandbox=args.sandbox)


if __name__ == "__main__":
    main()
