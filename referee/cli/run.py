"""``referee run CONFIG``: a league night from a config file."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import trio
from rich.console import Console
from rich.markup import escape

from referee.cli.main import positive_int
from referee.report.console import make_console

from referee.cli.cluster import open_cluster_runner
from referee.cli.setup import FeedStandings, StoreStandings, league_spec, open_results, run_trio, shutdown_guard
from referee.config import load_config
from referee.errors import BotError, ConfigError
from referee.league.budget import MovementRounds, league_sequential, movement_line, too_long_warning
from referee.league.human import AWAY_S, DELIVER_S, People, person_time
from referee.league.preflight import check_bots, no_league, trouble_line
from referee.league.progress import Plan, clock_text
from referee.league.run import LeagueSpec, run_league
from referee.league.runstate import RunClock
from referee.report.faults import overload_line
from referee.report.live import make_reporter
from referee.report.safe_text import safe_markup
from referee.report.standings_table import print_standings
from referee.schedule.fixture import Fixture
from referee.schedule.make import make_fixtures
from referee.standings.uncertainty import load as load_statistics


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("run", help="run a league night from a config file")
    parser.add_argument("config", type=Path, help="tournaments/<night>.toml")
    parser.add_argument("--resume", action="store_true", help="continue a league: skip the games already stored")
    parser.add_argument("--concurrency", type=positive_int, default=None, help="games played at once (default: the config's)")
    parser.add_argument("--no-live", action="store_true", help="plain line-by-line output instead of the live display")
    parser.add_argument("--results", type=Path, default=None, help="results file (default: the config's, or results/<league>.sqlite)")
    parser.add_argument("--serve", metavar="[HOST:]PORT", default=None, help="serve the league's web site while it runs (e.g. 8000)")
    parser.add_argument("--show-logs", action="store_true", help="with --serve: also serve the bots' logs")
    parser.add_argument(
        "--away-s", type=float, default=AWAY_S, metavar="SECONDS",
        help=f"a person (human = true) whose page is closed is waited for this long, then the referee plays their seat (default {AWAY_S:g})",
    )  # fmt: skip
    parser.add_argument("--cluster", metavar="ADDRESS", default=None, help="play the games on the Dask scheduler at ADDRESS, e.g. tcp://host:8786 (docs/cluster.md)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    began = time.monotonic()  # the league's clock counts from here: the class waits through the start-up too
    console = make_console()
    config = load_config(args.config)
    if any(bot.human for bot in config.bots) and (args.cluster or config.cluster):
        raise ConfigError(f"{config.source}: a league with people (human = true) is played on this machine, not on a cluster")
    cluster = open_cluster_runner(config, args.cluster, say=lambda line: console.print(line, markup=False, highlight=False))
    spec = league_spec(config, console, concurrency=args.concurrency, results=args.results, here=cluster is None)
    league = config.league
    names = [bot.name for bot in config.bots]
    fixtures = None
    if league.format != "movement":
        fixtures = make_fixtures(names, league.table_size, league.deals, league.seed, format=league.format, challengers=league.challengers)
    if cluster is None:
        check_bots_first(console, spec, live=not args.no_live)
    store = open_results(config, args.results, resume=args.resume, spec=spec)
    people = None
    if any(bot.human for bot in config.bots):
        times = {bot.name: person_time(spec.time, bot.move_ms) for bot in config.bots if bot.human}
        people = People(times, away_s=args.away_s, results=str(store.path))
    already = len(store.finished_game_ids())
    store.set_meta("sequential", league_sequential(league, store.meta().get("sequential")).to_text())  # the places to decide
    kept = StoreStandings(store, spec)  # the standings, kept as games are stored
    schedule: Sequence[Fixture] | MovementRounds
    if fixtures is None:
        schedule = MovementRounds(league, names, store, kept, say=lambda line: console.print(f"[bold]{line}[/]"))
        total = schedule.planned_games()
        games_text = f"{total:,} games" if total else "games in rounds"
        run_clock = schedule.clock_of_run
    else:
        schedule = fixtures
        total = len(schedule)
        games_text = f"{total:,} games"
        run_clock = RunClock(store, Plan(games=total))
    where = f"{spec.concurrency} games at once" if cluster is None else cluster.describe()
    console.print(
        f"[bold]{escape(spec.name)}[/]: {len(config.bots)} bots, {games_text} at tables of {league.table_size}, {where}"
        + (f"; {already:,} already played" if already else "")
    )
    if isinstance(schedule, MovementRounds):
        console.print(movement_line(league, schedule.shape))
    elif (warning := too_long_warning(total or 0, league)) is not None:
        console.print(f"[yellow]warning:[/] {warning}")
    console.print(f"rules: {spec.rules.summary()}", highlight=False)
    run_clock.start(at=began)
    reporter = make_reporter(console, progress=run_clock.progress, done=already, live=not args.no_live, standings=kept)
    if isinstance(schedule, MovementRounds):
        schedule.on_round = reporter.round_started

    def standings() -> None:
        print_standings(console, kept(), title=f"Standings — {escape(spec.name)}", rules_line=f"rules: {spec.rules.summary()}")

    load_statistics()  # now, not when Ctrl-C must print the standings at once

    def play_over() -> None:
        """Every game is played: the league's clock stops (one play time everywhere), and
        the screen says the final standings come next while the bots are stopped."""
        if isinstance(schedule, MovementRounds) and schedule.stop_reason is not None:
            run_clock.end(schedule.stop_reason, schedule.stopped or schedule.stop_reason)
        else:
            run_clock.end("schedule done", f"all {store.game_count():,} games of the schedule played")
        reporter.finishing()

    async def league_night() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_clock.keep_beating)
            if people is not None:
                await people.everyone_here(lambda line: console.print(line, markup=False, highlight=False))
            await run_league(spec, schedule, store, FeedStandings(reporter, kept, run_clock), cluster, over=play_over, people=people)
            if people is not None:
                await people.delivered(DELIVER_S)  # the last game's end reaches every person's open page
            nursery.cancel_scope.cancel()

    def site_up(url: str) -> None:
        console.print(
            f"site: {url}   (until the league ends; then `referee serve {store.path}` keeps it up)", markup=False, highlight=False
        )
        reporter.show_site(url)
        if people is not None:
            from referee.web.table import seat_links

            for name, link in seat_links(people, url):
                console.print(f"{name}'s seat: {link}", markup=False, highlight=False, soft_wrap=True)

    try:
        with shutdown_guard(console, store, summary=standings), reporter, (contextlib.closing(cluster) if cluster else contextlib.nullcontext()):
            if args.serve or people is not None:  # people play on the site: this machine only, unless --serve names an address
                from referee.web.serve import beside_league
                from referee.web.table import table_routes

                run_trio(beside_league(
                    league_night, args.serve or "127.0.0.1:0", store.path, show_logs=args.show_logs, logs_dir=spec.run_dir,
                    announce=site_up, say=lambda line: console.print(line, markup=False, highlight=False),
                    routes=table_routes(people) if people is not None else (),
                ))  # fmt: skip
            else:
                run_trio(league_night)
    finally:
        if not run_clock.ended:
            run_clock.end("interrupted", f"interrupted with {store.game_count():,} games stored")
    standings()
    if (line := overload_line(store.overloads())) is not None:
        console.print(line, style="yellow", soft_wrap=True, highlight=False, markup=False)
    over = run_clock.progress()
    console.print(f"{over.done:,} games in {clock_text(over.elapsed_s)} ({over.reason or over.state})", highlight=False)
    console.print(f"results: {store.path}   (referee standings {store.path})")
    return 0


def check_bots_first(console: Console, spec: LeagueSpec, *, live: bool = True) -> None:
    """Start each bot once before game 1 (:mod:`referee.league.preflight`), counting them
    on screen (``starting 30 bots: 12/30``; one line each way without a live terminal):
    name each bot that does not start (its log relative to here); raise BotError when no
    game can be played, HostError when the host cannot run a bot (both exit 2, before any
    game or standings)."""
    total = sum(not bot.human for bot in spec.bots)  # a person's seat starts no process
    if not total:
        return
    began = time.monotonic()

    def counted(done: int) -> str:
        return f"starting {total} bot{'s' if total != 1 else ''}: {done}/{total}"

    with shutdown_guard(console):
        if live and console.is_terminal:
            with console.status(counted(0)) as status:
                troubles = run_trio(partial(check_bots, spec, started=lambda done: status.update(counted(done))))
        else:
            console.print(f"starting {total} bot{'s' if total != 1 else ''}…", highlight=False)
            troubles = run_trio(partial(check_bots, spec))
    for trouble in troubles:
        shown = dataclasses.replace(trouble, log=None if trouble.log is None else shown_path(trouble.log))
        console.print(f"[yellow]{safe_markup(trouble_line(shown))}[/]", soft_wrap=True)
    if (stop := no_league(troubles, len(spec.bots))) is not None:
        raise BotError(stop)
    console.print(f"{total - len(troubles)} of {total} bots started in {time.monotonic() - began:.0f} s", highlight=False)


def shown_path(path: Path) -> Path:
    """``path`` relative to the current folder when it is inside it (a log named to the
    class: ``results/night/check/dora-3.log``), else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):
        return path
