"""Regenerate the README's screenshots: ``python docs/img/screenshots.py RESULTS``.

``web-standings.png`` and ``web-viewer.png``: the exported site of RESULTS in headless
Chromium (Debian's ``chromium``, driven by Playwright). ``terminal-live.png``: the live view
of the same league as a 100x30 terminal shows it (rich's HTML export, photographed by the
same browser).
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright
from rich.console import Console
from rich.terminal_theme import MONOKAI

from referee.league.progress import Plan, league_progress
from referee.report.live import ProgressLine, live_view, placement_line
from referee.results.store import ResultsStore
from referee.standings.table import compute_standings
from referee.web.export import export_html

HERE = Path(__file__).parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"]


def terminal_svg(results: Path) -> str:
    """The live view two thirds into the league, as a 100x30 terminal showed it then."""
    with ResultsStore.open_existing(results) as store:
        records = list(store.records())
        meta = store.meta()
    plan = Plan.from_json(json.loads(meta.get("plan", "null")))
    assert plan is not None, f"{results} holds no plan: play it with this referee"
    done = max(1, 2 * len(records) // 3)
    elapsed = float(meta.get("seconds_played", 0.0)) * done / len(records)
    per_round = plan.games_per_round or len(records)
    progress = league_progress(
        plan, done=done, rounds_started=-(-done // per_round) if plan.games_per_round else 0, elapsed_s=elapsed,
        rate=done / elapsed if elapsed else None, state="running",
    )  # fmt: skip
    console = Console(width=100, height=30, file=io.StringIO(), record=True, force_terminal=True, color_system="truecolor")
    view = live_view(
        console, ProgressLine(lambda: progress), compute_standings(records[:done]), status=None,
        last=placement_line(records[done - 1]), site="http://127.0.0.1:8000/",
    )  # fmt: skip
    console.print(view)
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><style>body{{margin:0;background:#272822}}'
        "pre{{margin:0;padding:14px 18px;color:#e4e4ef;background:#272822;"
        'font:14px/1.0 "DejaVu Sans Mono",monospace}}</style></head><body><pre>{code}</pre></body></html>'
    )
    return console.export_html(inline_styles=True, code_format=page, theme=MONOKAI)


def main(results: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        with ResultsStore.open_existing(results) as store:
            export_html(store, site)
        svg = Path(folder) / "terminal.html"
        svg.write_text(terminal_svg(results))
        game = sorted((site / "games").glob("*.html"))[0]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1220, "height": 700})
            page.goto((site / "index.html").as_uri())
            page.screenshot(path=HERE / "web-standings.png", full_page=True)
            page.goto(game.as_uri() + "#seat=0&step=4")
            page.screenshot(path=HERE / "web-viewer.png")
            page.set_viewport_size({"width": 940, "height": 200})
            page.goto(svg.as_uri())
            page.screenshot(path=HERE / "terminal-live.png", full_page=True)
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
