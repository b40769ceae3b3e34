"""``referee play BOT...``: a quick match at one table, with a trick-by-trick trace; ``you``
(or ``human:NAME``) seats a person, who plays in the browser (:mod:`referee.league.human`)."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import webbrowser
from functools import partial
from pathlib import Path

import trio
from rich.console import Console

from referee.cli.main import positive_int
from referee.report.console import make_console

from referee.cli.botspec import HUMAN, SAMPLE_BOTS, parse_bots
from referee.cli.setup import run_trio, shutdown_guard
from referee.config import rules_from_options
from referee.errors import ConfigError
from referee.game.faults import FaultPolicy
from referee.game.timecontrol import TimeControl
from referee.league.human import AWAY_S, DELIVER_S, People, person_time
from referee.league.pool import BotPool
from referee.league.run import LeagueSpec, play_fixture
from referee.report.live import placement_line
from referee.report.standings_table import print_standings
from referee.report.trace import print_trace
from referee.results.dealfile import deal_rules, read_deal
from referee.results.store import ResultsStore
from referee.sandbox import SandboxSettings, resolve_mode
from referee.schedule.fixture import Fixture
from referee.standings.table import compute_standings


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "play",
        help="a quick match of 2-7 bots at one table",
        description=f"Bots: a sample bot ({', '.join(SAMPLE_BOTS)}), a command ('python mybot.py'), "
        "NAME=COMMAND, or the address of a running bot (host:port, unix:/path); "
        "'you' or 'human:NAME' seats a person, who plays in the browser.",
    )
    parser.add_argument("bots", nargs="+", metavar="BOT")
    parser.add_argument("--games", type=positive_int, default=1, help="games to play; seats rotate every game (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals (default 1)")
    parser.add_argument("--trace", action="store_true", help="print every game trick by trick")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="a rule variant (rules.md §2); repeatable")
    parser.add_argument(
        "--deal",
        type=Path,
        metavar="FILE",
        help="a deal file (TOML, or JSON): the first dealer, the deck of chosen rounds and optionally "
        "the seed (replacing --seed) and the rules (a differing --rule is refused) for every game; "
        "export one with  referee replay RESULTS GAME --export-deal FILE",
    )
    parser.add_argument(
        "--override-rules",
        action="store_true",
        help="with --deal: let --rule change the rules the deal file carries (else a differing --rule is refused)",
    )
    parser.add_argument(
        "--move-ms", type=positive_int, default=None,
        help="time limit per decision in ms (default: 1000 for a bot, none for a person; given, a person's too)",
    )  # fmt: skip
    parser.add_argument(
        "--serve", metavar="[HOST:]PORT", default="127.0.0.1:0",
        help="with a person at the table: where the table is served (default: this machine only, a free port; "
        "0.0.0.0:8000 lets other machines in)",
    )  # fmt: skip
    parser.add_argument(
        "--away-s", type=float, default=AWAY_S, metavar="SECONDS",
        help=f"a person whose page is closed is waited for this long, then the referee plays their seat (default {AWAY_S:g})",
    )  # fmt: skip
    parser.add_argument("--no-browser", action="store_true", help="do not open the table in a browser (the link is printed)")
    parser.add_argument(
        "--preset", choices=("league", "strict", "debug"), default="league",
        help="fault policy (docs/design.md §5): league (default); strict: the first fault forfeits; "
        "debug: no time limit, every request and reply written to RESULTS-without-.sqlite/trace/",
    )  # fmt: skip
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "rlimits", "none"), default="auto")
    parser.add_argument("--results", type=Path, default=Path("results/play.sqlite"), help="where the games are stored (replaced)")
    parser.set_defaults(handler=run)


def game_seed(seed: int, game: int) -> int:
    return int.from_bytes(hashlib.sha256(f"play:{seed}:{game}".encode()).digest()[:8], "big")


def run(args: argparse.Namespace) -> int:
    console = make_console()
    bots = parse_bots(args.bots)
    if not 2 <= len(bots) <= 7:
        raise ConfigError(f"play: {len(bots)} bots given; a table seats 2-7")
    if args.games < 1:
        raise ConfigError("play: --games must be at least 1")
    if args.override_rules and args.deal is None:
        raise ConfigError("play: --override-rules goes with --deal FILE (it lets --rule change the deal file's rules)")
    deal = read_deal(args.deal) if args.deal is not None else None
    rules = deal_rules(deal, args.rule, override=args.override_rules) if deal is not None else rules_from_options(args.rule)
    rules.check_players(len(bots))
    if deal is not None:
        deal.check_seats(len(bots))
        if deal.rules is not None:
            console.print(f"rules of the deal file: {rules.summary()}", markup=False, highlight=False)
    settings = SandboxSettings(mode=args.sandbox)
    mode, warning = resolve_mode(settings)
    if warning:
        console.print(f"[yellow]{warning}[/]")
    args.results.parent.mkdir(parents=True, exist_ok=True)
    ResultsStore.remove(args.results)
    # the time control is kept with the games, so `referee replay --seat` can show the time each request gave
    move_ms = args.move_ms or 1000
    config_text = f'[time]\nmove_ms = {move_ms}\n\n[faults]\npreset = "{args.preset}"\n' + "".join(
        f'\n[[bots]]\nname = "{bot.name}"\nhuman = true\n' + (f"move_ms = {args.move_ms}\n" if args.move_ms else "")
        for bot in bots
        if bot.human
    )  # the people's seats and clocks too: `referee replay --seat` shows the time a person had
    store = ResultsStore.open(args.results, league="play", fingerprint="play", config_text=config_text, resume=False)
    time = TimeControl(move_ms=move_ms, unlimited=args.preset == "debug")
    people = None
    if any(bot.human for bot in bots):
        people = People(
            {bot.name: person_time(time, args.move_ms) for bot in bots if bot.human}, away_s=args.away_s, results=str(args.results)
        )
    spec = LeagueSpec(
        name="play",
        bots=bots,
        rules=rules,
        time=time,
        faults=FaultPolicy(preset=args.preset),
        sandbox=SandboxSettings(mode=mode),  # type: ignore[arg-type]
        concurrency=1,
        run_dir=args.results.with_suffix(""),
    )
    names = tuple(bot.name for bot in bots)
    first_dealer = game_seed(args.seed, -1) % len(names)
    if deal is not None and deal.first_dealer is not None:
        first_dealer = deal.first_dealer

    async def play_all() -> None:
        if people is None:
            await play_games()
            return
        from referee.web.serve import parse_address, serve_app  # the web's packages: only with a person
        from referee.web.table import seat_links, table_app

        async with trio.open_nursery() as nursery:
            url = await nursery.start(partial(serve_app, table_app(people), parse_address(args.serve, default_port=0)))
            links = seat_links(people, url)
            for name, link in links:
                clock = f"{args.move_ms:,} ms a decision" if args.move_ms else "no time limit"
                console.print(f"{name}: {link}   ({clock})", markup=False, highlight=False, soft_wrap=True)
            if not args.no_browser:
                open_browser(links[0][1], console)
            await people.everyone_here(lambda line: console.print(line, markup=False, highlight=False))
            await play_games()
            await people.delivered(DELIVER_S)  # the last game's end reaches every open page
            nursery.cancel_scope.cancel()

    async def play_games() -> None:
        async with BotPool(
            spec.bots, run_dir=spec.run_dir, sandbox=spec.sandbox, time=spec.time, max_restarts=3, deal_rule=False
        ) as pool:
            for number in range(args.games):
                rotation = number % len(names)
                seats = names[-rotation:] + names[:-rotation] if rotation else names
                fixture = Fixture(
                    index=number,
                    table=names,
                    deal=number // len(names),
                    rotation=rotation,
                    seats=seats,
                    seed=deal.seed if deal is not None and deal.seed is not None else game_seed(args.seed, number // len(names)),
                    first_dealer=first_dealer,
                    game_id=f"play-{number + 1}",
                )
                record = await play_fixture(spec, pool, fixture, decks=deal.decks if deal is not None else None, people=people)
                store.save_game(record)
                if args.trace:
                    print_trace(console, record)
                else:
                    console.print(placement_line(record), markup=False)

    with shutdown_guard(console, store, resumable=False):
        run_trio(play_all)
    if args.games > 1:
        print_standings(console, compute_standings(store.records(), bots=list(names)), title="Standings", rules_line=f"rules: {rules.summary()}")
    # the hint names the seat, in game play-1, of the first bot that is not a sample bot (the student's own)
    yours = next((bot.name for text, bot in zip(args.bots, bots) if text.strip() not in SAMPLE_BOTS), names[0])
    seat = store.record("play-1").seats.index(yours)
    console.print(
        f"games stored in {args.results}: what {yours} (seat {seat}) {'were' if yours == HUMAN else 'was'} sent in game play-1:",
        markup=False,
    )
    console.print(f"  referee replay {args.results} play-1 --seat {seat}", markup=False, soft_wrap=True)  # one line to copy
    if args.preset == "debug":
        console.print(f"every request and reply: {spec.run_dir / 'trace'}/<game>.jsonl", markup=False)
    return 0


def open_browser(link: str, console: Console) -> None:
    """Open ``link`` in the desktop's browser when there is one (a terminal on a desktop:
    never over ssh without a display, in a script, or in a test); say so."""
    desktop = sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if not (desktop and sys.stdout.isatty()):
        return
    try:
        if webbrowser.open(link):
            console.print("the table is open in your browser", markup=False, highlight=False)
    except webbrowser.Error:
        pass
