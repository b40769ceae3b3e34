"""``referee serve RESULTS``: the league's web site (read-only), for a finished or running league."""

from __future__ import annotations

import argparse
from pathlib import Path

import trio

from referee.report.console import make_console
from referee.results.store import ResultsStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="serve a league's standings, bot pages and game viewer as a web site")
    parser.add_argument("results", type=Path, help="results/<league>.sqlite (a league may still be running)")
    parser.add_argument("address", nargs="?", default=None, help="[HOST:]PORT to listen on (default 127.0.0.1:8000)")
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=None, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--show-logs", action="store_true", help="also serve the bots' logs (never served otherwise)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from referee.web.serve import parse_address, serve_site, site_pages

    console = make_console()
    host, port = parse_address(args.address) if args.address else ("127.0.0.1", 8000)
    host = args.host or host
    port = args.port if args.port is not None else port
    store = ResultsStore.open_existing(args.results)
    pages = site_pages(store, show_logs=args.show_logs, logs_dir=args.results.with_suffix(""))

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(lambda task_status: serve_site(pages, (host, port), task_status=task_status))
            console.print(f"site: {url}   (Ctrl-C stops it)", markup=False, highlight=False)

    try:
        trio.run(main)
    finally:
        store.close()
    return 0
