"""``referee export RESULTS --format html DIR``: the league's web site as static files."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.report.console import make_console
from referee.results.store import ResultsStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("export", help="write a league's web site as static files (for a class website)")
    parser.add_argument("results", type=Path, help="results/<league>.sqlite")
    parser.add_argument("--format", choices=("html",), required=True, help="html: a self-contained static site")
    parser.add_argument("dir", type=Path, help="folder to write the site into (created; files in it are replaced)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.web.export import export_html

    console = make_console()
    with ResultsStore.open_existing(args.results) as store:
        written = export_html(store, args.dir)
    console.print(f"wrote {written} pages to {args.dir}   (open {args.dir / 'index.html'})", markup=False, highlight=False)
    return 0
