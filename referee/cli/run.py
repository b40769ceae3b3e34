"""``referee run CONFIG``: a league night from a config file."""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

import trio
from referee.cli.main import positive_int
from referee.report.console import make_console

from referee.cli.setup import league_spec, open_results, shutdown_guard, store_standings
from referee.config import load_config
from referee.league import run_league
from referee.report.live import make_reporter
from referee.report.standings_table import print_standings
from referee.schedule import make_fixtures


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("run", help="run a league night from a config file")
    parser.add_argument("config", type=Path, help="tournaments/<night>.toml")
    parser.add_argument("--resume", action="store_true", help="continue a league: skip the games already stored")
    parser.add_argument("--concurrency", type=positive_int, default=None, help="tables played at once (default: the config's)")
    parser.add_argument("--no-live", action="store_true", help="plain line-by-line output instead of the live display")
    parser.add_argument("--results", type=Path, default=None, help="results file (default: the config's, or results/<league>.sqlite)")
    parser.add_argument("--serve", metavar="[HOST:]PORT", default=None, help="serve the league's web site while it runs (e.g. 8000)")
    parser.add_argument("--show-logs", action="store_true", help="with --serve: also serve the bots' logs")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    console = make_console()
    config = load_config(args.config)
    spec = league_spec(config, console, concurrency=args.concurrency, results=args.results)
    fixtures = make_fixtures(
        [bot.name for bot in config.bots],
        config.league.table_size,
        config.league.deals,
        config.league.seed,
        format=config.league.format,
        challengers=tuple(config.league.challengers),
    )
    store = open_results(config, args.results, resume=args.resume)
    already = len(store.finished_game_ids())
    console.print(
        f"[bold]{spec.name}[/]: {len(config.bots)} bots, {len(fixtures)} games at tables of "
        f"{config.league.table_size}, {spec.concurrency} at once"
        + (f"; {already} already played" if already else "")
    )
    console.print(f"rules: {spec.rules.summary()}")
    reporter = make_reporter(
        console, total=len(fixtures), done=already, live=not args.no_live, standings=lambda: store_standings(store, spec)
    )
    with shutdown_guard(console, store), reporter:
        league = partial(run_league, spec, fixtures, store, reporter)
        if args.serve:
            from referee.web.serve import beside_league

            bots = [bot.name for bot in config.bots]
            trio.run(beside_league(league, args.serve, store.path, total=len(fixtures), bots=bots, show_logs=args.show_logs, logs_dir=spec.run_dir, announce=console.print))
        else:
            trio.run(league)
    print_standings(console, store_standings(store, spec), title=f"Standings — {spec.name}", rules_line=f"rules: {spec.rules.summary()}")
    console.print(f"results: {store.path}   (referee standings {store.path})")
    return 0
