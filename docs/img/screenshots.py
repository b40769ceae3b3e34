"""Regenerate the README's screenshots: ``python docs/img/screenshots.py RESULTS``.

``web-standings.png`` and ``web-viewer.png``: the exported site of RESULTS in headless
Chromium (Debian's ``chromium``, driven by Playwright). ``terminal-live.png``: the live view
of the same league as a 100x30 terminal shows it (rich's HTML export, photographed by the
same browser).
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright
from rich.console import Console
from rich.terminal_theme import MONOKAI

from referee.report.live import live_view, placement_line, progress_bar
from referee.results.store import ResultsStore
from referee.standings.table import compute_standings
from referee.web.export import export_html

HERE = Path(__file__).parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"]


def terminal_svg(results: Path) -> str:
    with ResultsStore.open_existing(results) as store:
        records = list(store.records())
        total = max(len(records), 1) * 3
    console = Console(width=100, height=30, file=io.StringIO(), record=True, force_terminal=True, color_system="truecolor")
    now = [0.0]
    progress = progress_bar(console, lambda: now[0])
    task = progress.add_task("games", total=total, completed=0)
    for _ in records:
        now[0] += 2.5
        progress.update(task, advance=1)
    console.print(live_view(console, progress, compute_standings(records), status=None, last=placement_line(records[-1])))
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
        game = sorted((site / "games").glob("*-seat0.html"))[0]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            page.goto((site / "index.html").as_uri())
            page.screenshot(path=HERE / "web-standings.png", full_page=True)
            page.goto(game.as_uri() + "#step-4")
            page.screenshot(path=HERE / "web-viewer.png")
            page.set_viewport_size({"width": 940, "height": 200})
            page.goto(svg.as_uri())
            page.screenshot(path=HERE / "terminal-live.png", full_page=True)
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
