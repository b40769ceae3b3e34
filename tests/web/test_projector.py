"""The projector view: the standings of a 30-bot class on a 1280x720 screen (``?tv=1``),
the ranking key standing out, the head-to-head within the width, and the rating shown one
way on the site and in the terminal."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from referee.game.records import FaultRecord
from referee.report.standings_table import print_standings
from referee.results.store import ResultsStore
from referee.standings.table import compute_standings
from tests.league_data.league_records import game_record
from tests.web.test_browser import Referee

pytestmark = pytest.mark.browser

NAMES = [f"student-{number:02d}" for number in range(1, 29)] + ["a-rather-long-bot-name-x", "heuristic"]
SCREEN = {"width": 1280, "height": 720}


@pytest.fixture(scope="module")
def class_league(module_tmp: Path) -> Path:
    """420 games of 30 bots at tables of 4 (placements and faults from a fixed pattern)."""
    path = module_tmp / "class30.sqlite"
    store = ResultsStore.open(path, league="class30", fingerprint="f", config_text="", resume=False)
    cycle = itertools.cycle(range(30))
    for number in range(420):
        seats = [NAMES[next(cycle)] for _ in range(4)]
        strength = [NAMES.index(name) * 3 + (number * 7 + seat * 5) % 40 for seat, name in enumerate(seats)]
        order = sorted(range(4), key=lambda seat: -strength[seat])
        placements = [order.index(seat) + 1 for seat in range(4)]
        faults = [FaultRecord("timeout", 2, seats[2], 5, "deadline of 1100 ms exceeded")] if number % 7 == 0 else []
        store.save_game(game_record(f"t{number:03d}-d0-r0", seats, placements, fixture=number, faults=faults, league="class30"))
    store.close()
    return path


@pytest.fixture(scope="module")
def site(class_league: Path, browser: Any) -> Iterator[str]:
    referee = Referee.start("serve", str(class_league), "--port", "0")
    yield referee.url()
    referee.stop()


def test_thirty_bots_fit_a_1280x720_screen_with_the_ranking_key_standing_out(browser: Any, site: str, tmp_path: Path) -> None:
    page = browser.new_page(viewport=SCREEN)
    page.goto(site + "index.html?tv=1")
    # the rows' boxes read at once: the live site may swap the table in (SSE) between two reads
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll("table.standings tbody tr"), (row) => {
            const box = row.getBoundingClientRect();
            return {x: box.x, y: box.y, width: box.width, height: box.height};
        })"""
    )
    assert len(boxes) == 30
    for index, box in enumerate(boxes):
        assert box["y"] >= 0 and box["y"] + box["height"] <= SCREEN["height"], f"row {index + 1} is off the screen: {box}"
        assert box["x"] + box["width"] <= SCREEN["width"]
    assert page.evaluate("document.documentElement.scrollHeight") <= SCREEN["height"], "nothing to scroll on the projector"
    key = page.locator("table.standings tbody tr").first.locator("td.key")
    points = page.locator("table.standings tbody tr").first.locator("td.points")
    style = "(el) => [getComputedStyle(el).fontWeight, getComputedStyle(el).color, getComputedStyle(el).backgroundColor]"
    key_style, points_style = key.evaluate(style), points.evaluate(style)
    assert int(key_style[0]) >= 700 and int(points_style[0]) < 700, "the ranking key is bold, the points are not"
    assert key_style[1:] != points_style[1:], "and it has a colour of its own"
    assert page.locator("table.standings thead th.key").inner_text() == "strength"
    groups = page.locator("table.standings tbody tr td.group")
    assert groups.first.is_visible() and groups.first.inner_text().startswith("a"), "the class's groups show on the projector"
    note = page.locator("[data-testid=groups-note]")
    assert note.is_visible() and "no letter in common" in note.inner_text()
    box = note.bounding_box()
    assert box is not None and box["y"] + box["height"] <= SCREEN["height"], "the groups' line is on the screen"
    page.screenshot(path=tmp_path / "projector.png")

    page.goto(site + "h2h.html?tv=1")
    assert page.locator("table.h2h tbody tr").count() == 30
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"], "the head-to-head fits the width"
    page.screenshot(path=tmp_path / "projector-h2h.png")
    page.close()


def test_the_site_root_opens_the_projector_view(browser: Any, site: str) -> None:
    """Issue 41: ``/?tv=1`` gave the normal view (the redirect to index.html dropped the query)."""
    page = browser.new_page(viewport=SCREEN)
    page.goto(site + "?tv=1")
    assert page.url.endswith("index.html?tv=1")
    assert page.evaluate("document.documentElement.classList.contains('tv')")
    page.close()


def test_the_rating_is_shown_one_way_on_the_site_and_in_the_terminal(browser: Any, site: str, class_league: Path) -> None:
    with ResultsStore.open_existing(class_league) as store:
        standings = compute_standings(store.records())
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    print_standings(console, standings, title="Standings")
    terminal = console.export_text()
    page = browser.new_page()
    page.goto(site + "index.html")
    assert page.locator("table.standings thead th.rating").inner_text() == "rating μ±σ"
    for row in standings.rows[:5]:
        shown = page.locator(f"table.standings tr[data-bot='{row.bot}'] td.rating").inner_text()
        assert shown == f"{row.mu:.1f}±{row.sigma:.1f}" and f" {shown} " in terminal, (row.bot, shown)
        page.goto(site + f"bots/{row.bot}.html")
        assert shown in page.locator("dl.summary").inner_text()
        page.goto(site + "index.html")
    page.close()
