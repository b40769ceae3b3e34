"""Issue 41: a 30-bot movement league of kit bots in tiers (10 heuristic, 10 random, 10
that answer illegally and forfeit), run by the referee: the class's groups reproduce the
tiers' order, and the terminal, the web page and the projector show them."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.results.store import ResultsStore
from referee.standings.table import Standings, compute_standings
from tests.conftest import REPO, run_referee, write_config
from tests.web.test_browser import Referee

pytestmark = pytest.mark.browser

TIERS = {
    "heuristic": REPO / "sample_bots" / "python" / "heuristic_bot.py",
    "random": REPO / "sample_bots" / "python" / "random_bot.py",
    "cheat": REPO / "tests" / "e2e" / "bots" / "cheat_bot.py",
}
SCREEN = {"width": 1280, "height": 720}


def tier(bot: str) -> int:
    return list(TIERS).index(bot.split("-")[0])


@pytest.fixture(scope="module")
def lesson(module_tmp: Path) -> tuple[Path, str]:
    """The league run with plain output; (its results, what the terminal printed)."""
    lines = [
        "[league]", 'name = "lesson"', "seed = 3", "table_size = 4", 'format = "movement"', "games = 240",
        "concurrency = 4", f'results = "{module_tmp / "lesson.sqlite"}"',
        "[time]", "move_ms = 2000", "startup_ms = 60000",
    ]  # fmt: skip
    for kind, script in TIERS.items():
        for number in range(10):
            lines += ["[[bots]]", f'name = "{kind}-{number}"', f'command = ["python", "{script}"]']
    config = write_config(module_tmp / "lesson.toml", "\n".join(lines) + "\n")
    done = run_referee("run", str(config), "--no-live", timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return module_tmp / "lesson.sqlite", done.stdout


@pytest.fixture(scope="module")
def standings(lesson: tuple[Path, str]) -> Standings:
    with ResultsStore.open_existing(lesson[0]) as store:
        return compute_standings(store.played_games())


def test_the_groups_reproduce_the_tiers_order(standings: Standings) -> None:
    apart = standings.groups.apart
    assert all(tier(a) < tier(b) for a, b in apart), "no pair told apart against the tiers, nor within one"
    sure = [(a, b) for a in standings.groups.letters for b in standings.groups.letters if tier(a) < 2 and tier(b) == 2]
    assert all((a, b) in apart for a, b in sure), "every bot that plays is told apart from every bot that forfeits"
    letters = {row.bot: row.group for row in standings.rows}
    first = {level: min("abcdefghijklmnopqrstuvwxyz".index(letters[bot][0]) for bot in letters if tier(bot) == level) for level in range(3)}
    assert first[0] <= first[1] < first[2], f"the letters run in the tiers' order: {letters}"


def test_the_terminal_shows_the_groups(lesson: tuple[Path, str], standings: Standings) -> None:
    out = lesson[1]
    assert standings.claims()["groups"] in out
    for row in standings.rows:
        line = next(line for line in out.splitlines() if re.search(rf"│ {re.escape(row.bot)} ", line))
        assert f"│ {row.group_text} " in line, (row.bot, row.group_text, line)


@pytest.fixture(scope="module")
def site(lesson: tuple[Path, str], browser: Any) -> Iterator[str]:
    referee = Referee.start("serve", str(lesson[0]), "--port", "0")
    yield referee.url()
    referee.stop()


def test_the_web_page_and_the_projector_show_the_groups(browser: Any, site: str, standings: Standings, tmp_path: Path) -> None:
    for view, viewport in (("index.html", {"width": 1400, "height": 1000}), ("index.html?tv=1", SCREEN)):
        page = browser.new_page(viewport=viewport)
        page.goto(site + view)
        shown = page.evaluate(
            """() => Object.fromEntries(Array.from(document.querySelectorAll("table.standings tbody tr"),
                (row) => [row.dataset.bot, row.querySelector("td.group").textContent.trim()]))"""
        )
        assert shown == {row.bot: row.group_text for row in standings.rows}, view
        assert page.locator("[data-testid=groups-note]").is_visible()
        if "tv" in view:
            assert page.evaluate("document.documentElement.scrollHeight") <= SCREEN["height"], "the projector shows all 30"
        picture = tmp_path / f"class-{'projector' if 'tv' in view else 'page'}.png"
        page.screenshot(path=picture)
        if os.environ.get("KWS_KEEP_SCREENSHOTS"):
            shutil.copy(picture, Path(os.environ["KWS_KEEP_SCREENSHOTS"]) / picture.name)
        page.close()
