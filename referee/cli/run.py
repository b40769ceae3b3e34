"""``referee run CONFIG``: a league night from a config file."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from rich.markup import escape

from referee.cli.main import positive_int
from referee.report.console import make_console

from referee.cli.cluster import open_cluster_runner
from referee.cli.setup import league_spec, open_results, run_trio, shutdown_guard, store_standings
from referee.config import load_config
from referee.league.budget import MovementRounds, movement_line, too_long_warning
from referee.league.run import run_league
from referee.report.faults import overload_line
from referee.report.live import make_reporter
from referee.report.standings_table import print_standings
from referee.schedule.fixture import Fixture
from referee.schedule.make import make_fixtures
from referee.standings.uncertainty import load as load_statistics


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("run", help="run a league night from a config file")
    parser.add_argument("config", type=Path, help="tournaments/<night>.toml")
    parser.add_argument("--resume", action="store_true", help="continue a league: skip the games already stored")
    parser.add_argument("--concurrency", type=positive_int, default=None, help="tables played at once (default: the config's)")
    parser.add_argument("--no-live", action="store_true", help="plain line-by-line output instead of the live display")
    parser.add_argument("--results", type=Path, default=None, help="results file (default: the config's, or results/<league>.sqlite)")
    parser.add_argument("--serve", metavar="[HOST:]PORT", default=None, help="serve the league's web site while it runs (e.g. 8000)")
    parser.add_argument("--show-logs", action="store_true", help="with --serve: also serve the bots' logs")
    parser.add_argument("--cluster", metavar="ADDRESS", default=None, help="play the games on the Dask scheduler at ADDRESS, e.g. tcp://host:8786 (docs/cluster.md)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    console = make_console()
    config = load_config(args.config)
    spec = league_spec(config, console, concurrency=args.concurrency, results=args.results)
    league = config.league
    names = [bot.name for bot in config.bots]
    fixtures = None
    if league.format != "movement":
        fixtures = make_fixtures(names, league.table_size, league.deals, league.seed, format=league.format, challengers=league.challengers)
    cluster = open_cluster_runner(config, args.cluster)
    store = open_results(config, args.results, resume=args.resume, spec=spec)
    already = len(store.finished_game_ids())
    schedule: Sequence[Fixture] | MovementRounds
    if fixtures is None:
        schedule = MovementRounds(league, names, store, partial(store_standings, store, spec), say=lambda line: console.print(f"[bold]{line}[/]"))
        total = schedule.planned_games() or max(already, schedule.rounds_started * schedule.games_per_round, schedule.games_per_round)
        games_text = f"{total:,} games" if schedule.planned_games() else "games in rounds"
    else:
        schedule = fixtures
        total = len(schedule)
        games_text = f"{total:,} games"
    where = f"{spec.concurrency} at once" if cluster is None else cluster.describe()
    console.print(
        f"[bold]{escape(spec.name)}[/]: {len(config.bots)} bots, {games_text} at tables of {league.table_size}, {where}"
        + (f"; {already:,} already played" if already else "")
    )
    if isinstance(schedule, MovementRounds):
        console.print(movement_line(league, schedule.shape))
    elif (warning := too_long_warning(total, league)) is not None:
        console.print(f"[yellow]warning:[/] {warning}")
    console.print(f"rules: {spec.rules.summary()}", highlight=False)
    reporter = make_reporter(
        console, total=total, done=already, live=not args.no_live, standings=lambda: store_standings(store, spec)
    )
    if isinstance(schedule, MovementRounds) and not schedule.planned_games():
        schedule.on_round = reporter.schedule_grew

    def standings() -> None:
        print_standings(console, store_standings(store, spec), title=f"Standings — {escape(spec.name)}", rules_line=f"rules: {spec.rules.summary()}")

    load_statistics()  # now, not when Ctrl-C must print the standings at once
    league_night = partial(run_league, spec, schedule, store, reporter, cluster)
    try:
        with shutdown_guard(console, store, summary=standings), reporter, (contextlib.closing(cluster) if cluster else contextlib.nullcontext()):
            if args.serve:
                from referee.web.serve import beside_league

                run_trio(beside_league(
                    league_night, args.serve, store.path, total=total, bots=names,
                    show_logs=args.show_logs, logs_dir=spec.run_dir, announce=console.print,
                ))  # fmt: skip
            else:
                run_trio(league_night)
    finally:
        if isinstance(schedule, MovementRounds):
            schedule.save_time()
    standings()
    if (line := overload_line(store.overloads())) is not None:
        console.print(line, style="yellow", soft_wrap=True, highlight=False, markup=False)
    console.print(f"results: {store.path}   (referee standings {store.path})")
    return 0

