"""``referee faults RESULTS [--bot NAME]``: every stored fault with its evidence."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.errors import ConfigError
from referee.records import FAULT_KINDS
from referee.report.console import make_console
from referee.report.faults import print_faults
from referee.store import ResultsStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("faults", help="list the faults of a results file, with what each bot was asked and answered")
    parser.add_argument("results", type=Path, help="results/<league>.sqlite")
    parser.add_argument("--bot", default=None, help="only this bot's faults")
    parser.add_argument("--kind", choices=FAULT_KINDS, default=None, help="only faults of this kind")
    parser.add_argument("--full", action="store_true", help="also print each request as sent (JSON)")
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
    title = f"Faults — {league}" + (f", bot {args.bot}" if args.bot else "") + (f", {args.kind}" if args.kind else "")
    print_faults(make_console(), faults, title=title, full=args.full)
    return 0
