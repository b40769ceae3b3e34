"""``referee check-bot -- COMMAND...`` (or ``--address ADDR``): a conformance report for
one bot, one coloured line per check; exit code 0 only when every check passes."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from referee.checkbot.checks import CheckResult, CheckSettings, check_bot
from referee.checkbot.strength import strength_line
from referee.cli.botspec import SAMPLE_BOTS, parse_bot
from referee.cli.setup import run_trio, shutdown_guard
from referee.config import rules_from_options
from referee.errors import ConfigError
from referee.game.records import GameRecord
from referee.game.timecontrol import TimeControl
from referee.league.pool import BotEntry
from referee.report.console import make_console
from referee.report.safe_text import safe_markup
from referee.sandbox import SandboxSettings, resolve_mode

OPPONENTS = ("heuristic", "random")
MARKS = {"pass": "[bold green]PASS[/]", "warn": "[bold yellow]WARN[/]", "fail": "[bold red]FAIL[/]", "skip": "[yellow]SKIP[/]"}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "check-bot",
        help="check that one bot speaks the protocol, answers legally and on time",
        description="Examples:  referee check-bot -- python mybot.py    referee check-bot --address 127.0.0.1:50051",
    )
    parser.add_argument("command", nargs="*", metavar="COMMAND", help="the bot's command, after --")
    parser.add_argument("--address", default=None, help="check a bot already running at host:port or unix:/path")
    parser.add_argument("--name", default=None, help="the bot's name in the report (default: from the command)")
    parser.add_argument("--move-ms", type=int, default=1000, help="time limit per decision in ms (default 1000)")
    parser.add_argument("--grace-ms", type=int, default=100, help="grace margin in ms (default 100)")
    parser.add_argument("--startup-ms", type=int, default=10_000, help="time to start and answer Hello in ms (default 10000)")
    parser.add_argument("--games", type=int, default=20, help="games against the sample bots (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of those games' deals (default 1)")
    parser.add_argument(
        "--rule", action="append", default=[], metavar="KEY=VALUE",
        help="a rule variant (docs/rules.md §2) of the games against the sample bots, kept in every situation asked "
        "(the variants not given take each of their values there); repeatable",
    )  # fmt: skip
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "rlimits", "none"), default="auto")
    parser.add_argument(
        "--ro-path", action="append", default=[], metavar="PATH", help="a host path the sandboxed bot may read (repeatable)"
    )
    parser.add_argument("--logs", type=Path, default=Path("results/check-bot"), help="where bot logs go (default results/check-bot)")
    parser.set_defaults(handler=run)


def bot_entry(args: argparse.Namespace) -> BotEntry:
    """The bot under test from ``--address`` or the command. Raises ConfigError."""
    command = [part for part in args.command if part != "--"] if args.command[:1] == ["--"] else list(args.command)
    if args.address and command:
        raise ConfigError("check-bot: give a command after -- or --address ADDR, not both")
    if args.address:
        return BotEntry(name=args.name or "bot", address=args.address)
    if not command:
        raise ConfigError("check-bot: give the bot's command after --, e.g.  referee check-bot -- python mybot.py")
    # the command runs in the bot's own folder: paths given from here are made absolute, as
    # given (a virtualenv's bin/python is a link to its base interpreter: resolving it would
    # run that interpreter without the virtualenv's packages)
    command = [os.path.abspath(part) if "/" in part and Path(part).exists() else part for part in command]
    entry = parse_bot(shlex.join(command), set(OPPONENTS))
    ro_paths = entry.ro_paths + tuple(str(Path(path).resolve()) for path in args.ro_path)
    return BotEntry(args.name or entry.name, entry.command, entry.address, entry.directory, ro_paths)


def run(args: argparse.Namespace) -> int:
    console = make_console()
    for option in ("move_ms", "startup_ms", "games"):
        if getattr(args, option) < 1:
            raise ConfigError(f"check-bot: --{option.replace('_', '-')} must be at least 1")
    if args.grace_ms < 0:
        raise ConfigError("check-bot: --grace-ms must be 0 or more")
    bot = bot_entry(args)
    taken = {bot.name}
    opponents = tuple(parse_bot(name, taken) for name in OPPONENTS if name in SAMPLE_BOTS)
    rules = rules_from_options(args.rule)
    rules.check_players(1 + len(opponents))
    mode, warning = resolve_mode(SandboxSettings(mode=args.sandbox))
    if warning:
        console.print(f"[yellow]{escape(warning)}[/]")
    settings = CheckSettings(
        time=TimeControl(move_ms=args.move_ms, grace_ms=args.grace_ms, startup_ms=args.startup_ms),
        games=args.games,
        seed=args.seed,
        sandbox=SandboxSettings(mode=mode),  # type: ignore[arg-type]
        run_dir=args.logs,
        rules=rules,
        pinned=frozenset(option.partition("=")[0].strip() for option in args.rule),
    )
    target = bot.address or shlex.join(bot.command)
    console.print(f"[bold]check-bot[/] {escape(bot.name)}: {escape(target)}")
    games: list[GameRecord] = []
    with shutdown_guard(console), console.status("checking...") as status:
        results = run_trio(
            lambda: check_bot(
                bot, opponents, settings,
                on_result=lambda result: print_result(console, result),
                on_progress=lambda note: status.update(f"playing against the sample bots: {note}"),
                on_game=games.append,
            )
        )  # fmt: skip
    if games:
        console.print(f"[bold]strength[/] {escape(strength_line(games, bot.name))}", soft_wrap=True)
    failed = [result for result in results if not result.passed]
    if failed:
        console.print(f"[bold red]{len(failed)} of {len(results)} checks did not pass.[/] Bot logs: {escape(str(args.logs))}")
        return 1
    console.print(f"[bold green]all {len(results)} checks passed.[/]")
    return 0


def print_result(console: Console, result: CheckResult) -> None:
    """One line per check (green PASS, yellow WARN: passed with something to look at, red
    FAIL, yellow SKIP); a failure adds what the bot was asked, what it answered and what a
    legal answer would have been."""
    console.print(f"{MARKS[result.status]}  {escape(result.title)} — {safe_markup(result.summary)}", soft_wrap=True)
    if result.status != "fail":
        return
    for label, text in (("asked", result.asked), ("answered", result.answered), ("expected", result.expected)):
        if text:
            console.print(f"      [dim]{label}:[/] {safe_markup(text)}", soft_wrap=True)
