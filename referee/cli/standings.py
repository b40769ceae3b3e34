"""``referee standings RESULTS``: the standings recomputed from a results store."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from rich.markup import escape

from referee.report.console import make_console

from referee.game.rules import Rules
from referee.report.standings_table import print_standings
from referee.results.store import ResultsStore
from referee.standings.table import compute_standings
from referee.standings.verdicts import Sequential


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("standings", help="print the standings of a results file")
    parser.add_argument("results", type=Path, help="results/<league>.sqlite")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table",
                        help="table (with the head-to-head table up to 12 bots), json (standings and head-to-head), or csv")
    parser.add_argument("--head-to-head", action="store_true",
                        help="csv: the head-to-head table (bot, opponent, outlasted, met, share) instead; table: show it for any number of bots")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = ResultsStore.open_existing(args.results)
    meta = store.meta()
    standings = compute_standings(store.played_games(), sequential=Sequential.from_text(meta.get("sequential")))
    if args.format == "json":
        print(json.dumps(standings.to_json(), indent=2))
    elif args.format == "csv":
        writer = csv.writer(sys.stdout)
        for row in standings.head_to_head_csv_rows() if args.head_to_head else standings.csv_rows():
            writer.writerow(row)
    else:
        played = store.rules()
        rules = Rules.from_dict(played).summary() if played is not None else None
        print_standings(
            make_console(), standings, title=f"Standings — {escape(str(meta.get('league', '')))}", rules_line=f"rules: {rules}" if rules else None,
            head_to_head=True if args.head_to_head else None,
        )
    return 0
