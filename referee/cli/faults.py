"""``referee faults RESULTS``: a summary per bot of the stored faults, with the first
example of each kind; ``--full`` lists every fault with its evidence; ``--format json|csv``
gives them all as data."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.errors import ConfigError
from referee.game.records import FAULT_KINDS
from referee.report.console import make_console
from referee.report.faults import faults_csv, faults_json, find_logs, overload_line, print_faults, print_summary
from referee.results.store import ResultsStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("faults", help="the faults of a results file: a summary per bot, or every fault with what the bot was asked and answered")
    parser.add_argument("results", type=Path, help="results/<league>.sqlite")
    parser.add_argument("--bot", default=None, help="only this bot's faults")
    parser.add_argument("--kind", choices=FAULT_KINDS, default=None, help="only faults of this kind")
    parser.add_argument("--full", action="store_true", help="every fault with its evidence and the request as sent (JSON)")
    parser.add_argument("--format", choices=("text", "json", "csv"), default="text", help="json or csv: every fault as data")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = ResultsStore.open_existing(args.results)
    faults = store.faults(args.bot)
    if args.bot is not None and not faults:
        known = sorted({name for record in store.records() for name in record.seats})
        if args.bot not in known:
            raise ConfigError(f"faults: no bot named {args.bot!r} played in {args.results} (bots: {', '.join(known) or 'none'})")
    if args.kind is not None:
        faults = [stored for stored in faults if stored.fault.kind == args.kind]
    league = store.meta().get("league", "")
    logs = find_logs(args.results.with_suffix(""))  # the league's bot logs, beside its results
    if args.format == "json":
        sys.stdout.write(faults_json(faults, league=league, logs=logs) + "\n")
        return 0
    if args.format == "csv":
        sys.stdout.write(faults_csv(faults, logs))
        return 0
    title = f"Faults — {league}" + (f", bot {args.bot}" if args.bot else "") + (f", {args.kind}" if args.kind else "")
    console = make_console()
    if args.full:
        print_faults(console, faults, title=title, full=True, logs=logs)
    else:
        print_summary(console, faults, title=title, logs=logs)
    overloaded = {bot: counts for bot, counts in store.overloads().items() if args.bot in (None, bot)}
    if (line := overload_line(overloaded)) is not None:
        console.print(line, style="yellow", soft_wrap=True, highlight=False, markup=False)
    return 0
