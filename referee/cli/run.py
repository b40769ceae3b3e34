"""``referee run CONFIG``: a league night from a config file."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

import trio
from referee.cli.main import positive_int
from referee.report.console import make_console

from referee.cli.cluster import open_cluster_runner
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
    parser.add_argument("--cluster", metavar="ADDRESS", default=None, help="play the games on the Dask scheduler at ADDRESS, e.g. tcp://host:8786 (docs/cluster.md)")
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
    cluster = open_cluster_runner(config, args.cluster)
    store = open_results(config, args.results, resume=args.resume)
    already = len(store.finished_game_ids())
    where = f"{spec.concurrency} at once" if cluster is None else cluster.describe()
    console.print(
        f"[bold]{spec.name}[/]: {len(config.bots)} bots, {len(fixtures)} games at tables of "
        f"{config.league.table_size}, {where}"
        + (f"; {already} already played" if already else "")
    )
    console.print(f"rules: {spec.rules.summary()}")
    reporter = make_reporter(
        console, total=len(fixtures), done=already, live=not args.no_live, standings=lambda: store_standings(store, spec)
    )
    with shutdown_guard(console, store), reporter, (contextlib.closing(cluster) if cluster else contextlib.nullcontext()):
        trio.run(run_league, spec, fixtures, store, reporter, cluster)
    print_standings(console, store_standings(store, spec), title=f"Standings — {spec.name}", rules_line=f"rules: {spec.rules.summary()}")
    console.print(f"results: {store.path}   (referee standings {store.path})")
    return 0

