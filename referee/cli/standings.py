"""``referee standings RESULTS``: the standings recomputed from a results store."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from rich.markup import escape

from referee.report.console import make_console

from referee.errors import ConfigError
from referee.game.rules import Rules
from referee.report.standings_table import print_standings
from referee.results.store import ResultsStore
from referee.standings.table import Standings, compute_standings
from referee.standings.verdicts import Sequential


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("standings", help="print the standings of a results file")
    parser.add_argument("results", type=Path, help="results/<league>.sqlite")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table",
                        help="table (with the head-to-head table up to 12 bots), json (standings and head-to-head), or csv")
    parser.add_argument("--head-to-head", action="store_true",
                        help="csv: the head-to-head table (bot, opponent, outlasted, met, share) instead; table: show it for any number of bots")
    parser.add_argument("--bot", default=None, metavar="NAME",
                        help="one bot's line: its place, group, strength and the bots the results tell apart from it (json: its row and that line)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = ResultsStore.open_existing(args.results)
    meta = store.meta()
    standings = compute_standings(store.played_games(), sequential=Sequential.from_text(meta.get("sequential")))
    if args.bot is not None:
        return one_bot(standings, args.bot, args.results, args.format)
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


def one_bot(standings: Standings, bot: str, results: Path, format: str) -> int:
    """``--bot NAME``: the bot's own line (table), or its row and line (json/csv: JSON).
    ConfigError for a bot the results do not have."""
    try:
        row = standings.row(bot)
    except KeyError:
        known = ", ".join(row.bot for row in standings.rows)
        raise ConfigError(f"standings: no bot named {bot!r} in {results} (bots: {known or 'none'})") from None
    line = standings.own_line(bot)
    if format != "table":
        print(json.dumps({**row.to_json(), "own_line": None if line is None else line.to_json(), "claims": standings.claims()}, indent=2))
        return 0
    console = make_console()
    if row.strength is None:
        console.print(f"{escape(bot)}: no games yet", highlight=False)
        return 0
    interval = "" if row.strength.low is None else f" ({standings.confidence:.0%} interval {row.strength.low:.2f}–{row.strength.high:.2f})"
    console.print(f"[bold]{escape(bot)}[/]: place {row.place_text} of {len(standings.rows)}, group {row.group_text}, "
                  f"strength {row.strength.estimate:.2f} pts/g{interval}, places possible {row.rank_text}", highlight=False)
    if line is not None:
        console.print(line.text(), highlight=False)
        if line.tested:
            for label, names in (("above", line.above), ("below", line.below), ("not told apart from", line.not_apart)):
                if names:
                    console.print(f"  {label}: {escape(', '.join(names))}", highlight=False)
    claims = standings.claims()
    for key in ("own_line", "groups", "rank_set"):
        console.print(claims[key], style="dim", highlight=False)
    return 0
