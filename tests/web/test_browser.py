"""The web site in a real headless browser, against a real league of bot processes run by
the referee (``referee run --serve``), then ``referee serve`` and ``referee export``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, processes_matching, run_referee, write_config

pytestmark = pytest.mark.browser

SAMPLES = REPO / "sample_bots" / "python"
E2E_BOTS = REPO / "tests" / "e2e" / "bots"
WAIT_MS = 120_000  # generous: other leagues share this machine's two cores


@dataclass
class Referee:
    """A referee process whose output is collected line by line."""

    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, *args: str) -> Referee:
        env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
        process = subprocess.Popen(
            [sys.executable, "-m", "referee", *args], cwd=REPO, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        referee = cls(process)
        threading.Thread(target=referee._read, daemon=True).start()
        return referee

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def url(self, timeout_s: float = 180) -> str:
        """The site's URL from the ``site: URL`` line."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for line in self.lines:
                found = re.search(r"site: (http://\S+)", line)
                if found:
                    return found.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError("no site line:\n" + "".join(self.lines))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def league_config(tmp: Path) -> Path:
    lines = [
        "[league]", 'name = "web"', "seed = 11", "table_size = 3", "deals = 2", "concurrency = 1",
        f'results = "{tmp / "web.sqlite"}"',
        "[time]", "move_ms = 400", "grace_ms = 100", "startup_ms = 30000",
        "[faults]", "max_faults = 10",
    ]  # fmt: skip
    bots = {
        "heuristic": SAMPLES / "heuristic_bot.py",
        "random": SAMPLES / "random_bot.py",
        "cheat": E2E_BOTS / "cheat_bot.py",
        "sleepy": E2E_BOTS / "sleepy_bot.py",
    }
    for name, script in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{script}"]']
    return write_config(tmp / "web.toml", "\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def running(module_tmp: Path, browser: Any) -> Iterator[Referee]:
    """``referee run web.toml --serve 0``: 24 games, one at a time (the browser is up first)."""
    referee = Referee.start("run", str(league_config(module_tmp)), "--no-live", "--serve", "0")
    yield referee
    referee.stop()
    assert not processes_matching(str(E2E_BOTS))


@pytest.fixture(scope="module")
def finished(running: Referee, module_tmp: Path) -> Path:
    """The results file once the league is over."""
    assert running.process.wait(timeout=600) == 0, "".join(running.lines)
    return module_tmp / "web.sqlite"


@pytest.fixture(scope="module")
def served(finished: Path) -> Iterator[str]:
    """``referee serve RESULTS`` on a free port; its URL."""
    referee = Referee.start("serve", str(finished), "--port", "0")
    yield referee.url()
    referee.stop()


def games_done(page: Any) -> int:
    return int(page.locator("[data-testid=games-done]").inner_text())


def test_the_standings_page_updates_while_games_finish(browser: Any, running: Referee, tmp_path: Path) -> None:
    url = running.url()
    assert url.startswith("http://127.0.0.1:"), "this machine only, unless told otherwise"
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("table.standings", timeout=WAIT_MS)
    page.evaluate("window.notReloaded = true")
    first = games_done(page)
    page.screenshot(path=tmp_path / "standings-start.png", full_page=True)
    assert first < 24, "the league finished before the page opened"
    page.wait_for_function(
        f"Number(document.querySelector('[data-testid=games-done]').textContent) >= {first + 2}", timeout=WAIT_MS * 2
    )
    page.wait_for_function(
        f"Number(document.querySelector('table.standings').dataset.games) >= {first + 2}", timeout=WAIT_MS
    )
    assert page.evaluate("window.notReloaded") is True, "updated in place, not by reloading"
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 4
    assert sum(int(rows.nth(i).locator("td.games").inner_text()) for i in range(4)) >= 3 * (first + 2)
    page.screenshot(path=tmp_path / "standings-later.png", full_page=True)
    page.close()


def test_a_bot_page_lists_its_faults_by_kind_with_an_example(browser: Any, served: str, tmp_path: Path) -> None:
    page = browser.new_page()
    page.goto(served + "index.html")
    page.click("table.standings a:text-is('cheat')")
    page.wait_for_selector("h1:text-is('cheat')")
    illegal = page.locator("tr.fault-row[data-kind=illegal]")
    assert illegal.count() == 1
    evidence = illegal.inner_text()
    assert "is not legal" in evidence and "asked" in evidence and "legal" in evidence
    assert page.locator("figure.plot svg").count() == 1, "the decision-time plot"
    page.screenshot(path=tmp_path / "bot-cheat.png", full_page=True)

    page.goto(served + "index.html")
    page.click("table.standings a:text-is('sleepy')")
    assert page.locator("tr.fault-row[data-kind=timeout]").count() == 1
    page.goto(served + "index.html")
    page.click("table.standings a:text-is('heuristic')")
    assert page.locator("tr.fault-row").count() == 0
    assert "No faults" in page.inner_text("main")
    page.close()


def visible_step(page: Any) -> Any:
    return page.locator("section.step:visible")


def test_the_viewer_steps_through_a_game_and_a_seat_sees_only_its_hand(browser: Any, served: str, tmp_path: Path) -> None:
    page = browser.new_page()
    page.goto(served + "bots/sleepy.html")
    link = page.locator("table.games a").first
    game_id = link.inner_text()
    seat = int(page.locator("table.games tbody tr").first.locator("td").nth(1).inner_text())
    link.click()
    page.wait_for_selector("section.step")
    assert page.url.endswith(f"{game_id}-seat{seat}.html")
    total = page.locator("section.step").count()
    assert total > 5
    others = [s for s in range(3) if s != seat]
    for number in range(total):
        step = visible_step(page)
        assert step.count() == 1
        assert step.get_attribute("data-step") == str(number)
        if number < total - 1:
            assert step.locator(f".hand[data-seat='{seat}'] .card").count() + step.locator(f".hand[data-seat='{seat}'] .dim").count() > 0
            for other in others:
                assert step.locator(f".hand[data-seat='{other}'] .card").count() == 0, f"seat {other}'s cards shown at step {number}"
            if number == 3:
                page.screenshot(path=tmp_path / "viewer-seat.png", full_page=True)
            step.locator("a.next").click()
        else:
            assert "Game over" in step.inner_text()
            for every in range(3):
                assert step.locator(f".hand[data-seat='{every}'] .card").count() > 0, "all hands once the game is over"
            step.locator("a.prev").click()
            assert visible_step(page).get_attribute("data-step") == str(number - 1)
    page.goto(served + f"games/{game_id}.html")
    deal = visible_step(page)
    assert deal.get_attribute("data-step") == "0"
    for every in range(3):
        assert deal.locator(f".hand[data-seat='{every}'] .card").count() > 0, "the all-hands view shows every hand"
    page.screenshot(path=tmp_path / "viewer-all.png", full_page=True)
    page.close()


def test_the_exported_site_opens_from_disk_without_network(browser: Any, finished: Path, module_tmp: Path, tmp_path: Path) -> None:
    site = module_tmp / "site"
    done = run_referee("export", str(finished), "--format", "html", str(site))
    assert done.returncode == 0, done.stderr
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), f"an external reference in {html}"
        assert "<script" not in text, "the static site needs no JavaScript"
    context = browser.new_context(offline=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto((site / "index.html").as_uri())
    assert page.locator("table.standings tbody tr").count() == 4
    assert page.evaluate("getComputedStyle(document.querySelector('header')).display") == "flex", "the stylesheet loaded"
    page.screenshot(path=tmp_path / "export-index.png", full_page=True)
    page.click("table.standings a:text-is('cheat')")
    assert page.locator("tr.fault-row[data-kind=illegal]").count() == 1
    page.locator("table.games a").first.click()
    page.locator("section.step:visible a.next").click()
    assert page.locator("section.step:visible").get_attribute("data-step") == "1"
    page.click("header a:text-is('Head-to-head')")
    assert page.locator("table.h2h tbody tr").count() == 4
    assert all(url.startswith("file://") for url in requests), [url for url in requests if not url.startswith("file://")]
    context.close()


def test_bot_logs_are_served_only_with_show_logs(browser: Any, served: str, finished: Path) -> None:
    logs = sorted(finished.with_suffix("").rglob("heuristic-*.log"))
    assert logs, "the league kept the bots' logs"
    name = logs[0].relative_to(finished.with_suffix("")).as_posix()
    page = browser.new_page()
    assert page.goto(served + f"logs/{name}").status == 404
    page.goto(served + "bots/heuristic.html")
    assert page.locator("h2:text-is('Logs')").count() == 0
    referee = Referee.start("serve", str(finished), "--port", "0", "--show-logs")
    try:
        url = referee.url()
        page.goto(url + "bots/heuristic.html")
        link = page.locator(f"a:text-is('{name}')")
        assert link.count() == 1
        assert page.goto(url + f"logs/{name}").status == 200
        assert page.goto(url + "logs/../web.toml").status == 404
    finally:
        referee.stop()
    page.close()
