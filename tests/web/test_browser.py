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
FAULT_BOTS = REPO / "tests" / "faults" / "bots"
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


MINUTES = 1.0  # the league's time budget: a round or two (the first round is always played)


def league_config(tmp: Path) -> Path:
    """A movement league of 5 bots at tables of 3 under a minutes budget: 15 games a round,
    one at a time; ``cheat`` answers illegally, ``sleepy`` times out, ``broken`` never
    starts (its seat is played by the referee once it is withdrawn)."""
    lines = [
        "[league]", 'name = "web"', "seed = 11", "table_size = 3", 'format = "movement"', f"minutes = {MINUTES}",
        "concurrency = 1", f'results = "{tmp / "web.sqlite"}"',
        "[time]", "move_ms = 400", "grace_ms = 100", "startup_ms = 30000",
        "[faults]", "max_faults = 10", "max_restarts = 1",
    ]  # fmt: skip
    bots = {
        "heuristic": SAMPLES / "heuristic_bot.py",
        "random": SAMPLES / "random_bot.py",
        "cheat": E2E_BOTS / "cheat_bot.py",
        "sleepy": E2E_BOTS / "sleepy_bot.py",
        "broken": FAULT_BOTS / "dies_at_start_bot.py",
    }
    for name, script in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{script}"]']
    return write_config(tmp / "web.toml", "\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def running(module_tmp: Path, browser: Any) -> Iterator[Referee]:
    """``referee run web.toml --serve 0``: the movement league (the browser is up first)."""
    referee = Referee.start("run", str(league_config(module_tmp)), "--no-live", "--serve", "0")
    yield referee
    referee.stop()
    assert not processes_matching(str(E2E_BOTS))


@pytest.fixture(scope="module")
def finished(running: Referee, module_tmp: Path) -> Path:
    """The results file once the league is over."""
    assert running.process.wait(timeout=900) == 0, "".join(running.lines)
    return module_tmp / "web.sqlite"


@pytest.fixture(scope="module")
def served(finished: Path) -> Iterator[str]:
    """``referee serve RESULTS`` on a free port; its URL."""
    referee = Referee.start("serve", str(finished), "--port", "0")
    yield referee.url()
    referee.stop()


def games_done(page: Any) -> int:
    return int(page.locator("[data-testid=games]").get_attribute("data-done"))


def stored_games(results: Path) -> int:
    from referee.results.store import ResultsStore

    with ResultsStore.open_existing(results) as store:
        return store.game_count()


def test_the_standings_page_follows_the_league_to_its_end(browser: Any, running: Referee, module_tmp: Path, tmp_path: Path) -> None:
    """During the league: running, the league's progress (round, budget), updated in place.
    After it: the same open page, never reloaded, says finished and why, with the final
    count and standings, and the numbers the terminal printed."""
    url = running.url()
    assert url.startswith("http://127.0.0.1:"), "this machine only, unless told otherwise"
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("table.standings", timeout=WAIT_MS)
    page.evaluate("window.notReloaded = true")
    assert page.locator("[data-testid=league-state]").inner_text().startswith("running")
    assert "running" in page.locator("[data-testid=footer]").inner_text()
    first = games_done(page)
    assert page.locator("[data-testid=round]").inner_text().startswith("round "), "a movement league shows its round"
    assert page.locator("[data-testid=eta]").inner_text().endswith("(budget 1:00)"), "the ETA runs to the budget"
    page.screenshot(path=tmp_path / "standings-start.png", full_page=True)
    page.wait_for_function(
        f"Number(document.querySelector('[data-testid=games]').dataset.done) >= {first + 2}", timeout=WAIT_MS * 2
    )
    page.wait_for_function(f"Number(document.querySelector('table.standings').dataset.games) >= {first + 2}", timeout=WAIT_MS)
    estimated = "~" in page.locator("[data-testid=games]").inner_text()
    assert estimated or "ETA estimating…" in page.locator("[data-testid=eta]").inner_text(), (
        "a minutes budget plans an estimate of the league's games (from round 2 on: round 1 starts the bots)"
    )
    assert page.evaluate("window.notReloaded") is True, "updated in place, not by reloading"
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 5
    assert sum(int(rows.nth(i).locator("td.games").inner_text()) for i in range(5)) >= 3 * (first + 2)

    assert running.process.wait(timeout=900) == 0, "".join(running.lines)
    total = stored_games(module_tmp / "web.sqlite")
    assert first < total, "the page opened before the league ended"
    state = page.locator("[data-testid=league-state]")
    page.wait_for_function("document.querySelector('[data-testid=league-state]').textContent.startsWith('finished')", timeout=WAIT_MS)
    assert state.inner_text() == "finished (time budget)"
    assert games_done(page) == total and page.locator("[data-testid=games]").inner_text() == f"{total}/{total} games"
    page.wait_for_function(f"Number(document.querySelector('table.standings').dataset.games) == {total}", timeout=WAIT_MS)
    assert sum(int(rows.nth(i).locator("td.games").inner_text()) for i in range(5)) == 3 * total, "the final standings"
    terminal = "".join(running.lines)
    stop = next(line.strip() for line in running.lines if line.startswith("time budget reached:"))
    assert page.locator("[data-testid=end-line]").inner_text() == stop, "the terminal's words"
    assert stop.startswith(f"time budget reached: {page.locator('[data-testid=round]').inner_text()}, {total} games; ")
    assert "past the 1:00 budget" in stop
    played = re.search(rf"all {total} games played in (\d+:\d\d): writing the final standings…", terminal)
    assert played is not None and f"{total} games in {played.group(1)} (time budget)" in terminal, "said at the end, one play time"
    assert page.locator("[data-testid=elapsed]").inner_text() == played.group(1), "the site's play time is the terminal's"
    assert terminal.count("] ") >= total and re.search(rf"\[{total}[/\]]", terminal), "the plain lines count the league's games"
    assert "time budget" in page.locator("[data-testid=footer]").inner_text() and "running" not in page.locator("[data-testid=footer]").inner_text()
    assert "site: 1 open page got the final standings; it stops now. Keep it up with: referee serve" in terminal
    assert page.evaluate("window.notReloaded") is True
    page.screenshot(path=tmp_path / "standings-end.png", full_page=True)
    page.close()


def test_a_finished_league_served_later_says_so_and_its_clock_stands_still(browser: Any, served: str) -> None:
    page = browser.new_page()
    page.goto(served + "index.html")
    assert page.locator("[data-testid=league-state]").inner_text() == "finished (time budget)"
    elapsed = page.locator("[data-testid=elapsed]").inner_text()
    time.sleep(2.5)
    page.reload()
    assert page.locator("[data-testid=elapsed]").inner_text() == elapsed, "a finished league's time does not run on"
    assert "live" not in page.locator("[data-testid=footer]").inner_text().split("·")[-1]
    page.close()


def test_a_bot_page_lists_its_faults_by_kind_with_an_example(browser: Any, served: str, tmp_path: Path) -> None:
    page = browser.new_page()
    page.goto(served + "index.html")
    page.click("table.standings a:text-is('cheat')")
    page.wait_for_selector("h1:text-is('cheat')")
    illegal = page.locator("tr.fault-row[data-kind=illegal]")
    assert illegal.count() == 1
    evidence = illegal.inner_text()
    assert "is not in your hand" in evidence and "asked" in evidence and "legal" in evidence
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


def step_number(page: Any) -> int:
    step = visible_step(page)
    assert step.count() == 1, "one step shown at a time"
    return int(step.get_attribute("data-step"))


def test_the_viewer_steps_through_a_game_and_a_seat_sees_only_its_hand(browser: Any, served: str, tmp_path: Path) -> None:
    page = browser.new_page()
    page.goto(served + "bots/sleepy.html")
    link = page.locator("table.games a").first
    game_id = link.inner_text()
    seat = int(page.locator("table.games tbody tr").first.locator("td").nth(1).inner_text())
    link.click()
    page.wait_for_selector("section.step")
    assert page.url.endswith(f"{game_id}.html#seat={seat}")
    total = int(re.search(r"step 1 of (\d+)", visible_step(page).inner_text()).group(1))  # type: ignore[union-attr]
    assert total > 5
    others = [s for s in range(3) if s != seat]
    for number in range(1, total + 1):
        step = visible_step(page)
        assert step_number(page) == number and f"step {number} of {total}:" in step.inner_text()
        assert page.url.endswith(f"step={number}") or number == 1, "the address names the step shown"
        if number < total:
            assert step.locator(f".hand[data-seat='{seat}'] .card").count() + step.locator(f".hand[data-seat='{seat}'] .dim").count() > 0
            for other in others:
                assert step.locator(f".hand[data-seat='{other}'] .card").count() == 0, f"seat {other}'s cards shown at step {number}"
            if number == 4:
                page.screenshot(path=tmp_path / "viewer-seat.png", full_page=True)
            step.locator("a.next").click()
        else:
            assert "Game over" in step.inner_text()
            for every in range(3):
                assert step.locator(f".hand[data-seat='{every}'] .card").count() > 0, "all hands once the game is over"
            step.locator("a.prev").click()
            assert step_number(page) == number - 1
    page.goto(served + f"games/{game_id}.html#seat={seat}&step=5")
    page.wait_for_selector("section.step[data-step='5']")
    assert "step 5 of" in visible_step(page).inner_text(), "#step=5 opens step 5"
    page.goto(served + f"games/{game_id}.html")
    assert step_number(page) == 1
    for every in range(3):
        assert visible_step(page).locator(f".hand[data-seat='{every}'] .card").count() > 0, "the all-hands view shows every hand"
    page.goto(served + f"games/{game_id}-seat{seat}.html")
    assert page.locator(".views a.current").inner_text().endswith(f"(seat {seat})"), "the old per-seat address opens that seat's view"
    page.screenshot(path=tmp_path / "viewer-all.png", full_page=True)
    page.close()


def test_the_viewer_marks_every_fault_and_every_move_the_referee_played(browser: Any, served: str, tmp_path: Path) -> None:
    page = browser.new_page()
    page.goto(served + "bots/sleepy.html")
    row = page.locator("table.fault-list tbody tr[data-kind=timeout]").first
    anchor = row.get_attribute("id")
    row.locator("a").first.click()  # the game of sleepy's first timeout, as sleepy saw it
    page.wait_for_selector("section.step")
    listed = page.locator(".game-faults li.fault-item[data-kind=timeout]")
    assert listed.count() >= 1 and "no answer within 500 ms" in listed.first.inner_text()
    listed.first.locator("a").first.click()  # to the step of that fault
    step = visible_step(page)
    mark = step.locator(".play.fallback .fault-mark")
    assert mark.count() >= 1 and mark.first.inner_text() == "timeout: played by the referee"
    note = step.locator(".fault-note[data-kind=timeout]").first
    words = note.inner_text()
    assert "sleepy (seat" in words and "no answer within 500 ms" in words and "The referee played" in words, words
    assert "DEADLINE" not in words and "Deadline" not in words
    page.screenshot(path=tmp_path / "viewer-fault.png", full_page=True)
    note.locator("a.fault-link").click()  # to the fault on sleepy's page
    page.wait_for_selector("h1:text-is('sleepy')")
    target = page.url.rsplit("#", 1)[1]
    assert page.locator(f"tr[id='{target}'][data-kind=timeout]").count() == 1
    assert anchor is not None and anchor.startswith("fault-")

    page.goto(served + "bots/broken.html")  # never started: withdrawn, its seat played by the referee
    assert page.locator("tr.fault-row[data-kind=startup]").count() == 1
    page.locator("table.games a").last.click()
    page.wait_for_selector("section.step")
    marked = 0
    for _ in range(60):
        step = visible_step(page)
        marked += step.locator(".play.by-referee .referee-mark, .play.fallback .fault-mark").count()
        if step.locator("a.next").count() == 0:
            break
        step.locator("a.next").click()
    assert marked > 0, "the moves the referee played for a bot that never started are marked"
    page.close()


FORBIDDEN = ("?", "DEADLINE_EXCEEDED", "UNAVAILABLE", "gRPC", "/tmp/", "/home/", "/usr/", "/work/")


SHOW = "(hash) => { location.hash = hash; window.dispatchEvent(new HashChangeEvent('hashchange')); return document.body.innerText; }"


def page_text_problems(page: Any, where: str, hash: str | None = None) -> list[str]:
    """What the page shows (at ``hash``: drawn at once) that no page may show."""
    text = page.evaluate(SHOW, hash) if hash else page.evaluate("document.body.innerText")
    return [f"{where}: {bad!r} in {text[max(0, text.index(bad) - 80): text.index(bad) + 80]!r}" for bad in FORBIDDEN if bad in text]


def test_no_page_shows_a_placeholder_a_grpc_status_or_a_host_path(browser: Any, served: str, finished: Path) -> None:
    """Every page of the site, and every step of every view of the faulty bots' games."""
    assert str(finished.parent).startswith("/tmp/") and str(REPO).startswith("/")
    page = browser.new_page()
    problems: list[str] = []
    for path in ("index.html", "h2h.html", "games.html", *(f"bots/{name}.html" for name in ("heuristic", "random", "cheat", "sleepy", "broken"))):
        page.goto(served + path)
        problems += page_text_problems(page, path)
    for bot in ("broken", "sleepy", "cheat"):
        page.goto(served + f"bots/{bot}.html")
        game = page.locator("table.games a").first.get_attribute("href")
        page.goto(served + f"bots/{game}".replace("bots/../", ""))
        page.wait_for_selector("section.step")
        steps = int(re.search(r"of (\d+):", visible_step(page).inner_text()).group(1))  # type: ignore[union-attr]
        for view in ("all", "0", "1", "2"):
            for number in range(1, steps + 1):
                problems += page_text_problems(page, f"{game} seat={view} step={number}", f"seat={view}&step={number}")
    assert not problems, "\n".join(problems[:10])
    page.close()


def test_the_exported_site_opens_from_disk_without_network(browser: Any, finished: Path, module_tmp: Path, tmp_path: Path) -> None:
    site = module_tmp / "site"
    done = run_referee("export", str(finished), "--format", "html", str(site))
    assert done.returncode == 0, done.stderr
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), f"an external reference in {html}"
        assert "htmx" not in text, "no live updates in the export"
    assert not list(site.rglob("*-seat*.html")), "one page per game: every seat's view is drawn from its record"
    context = browser.new_context(offline=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto((site / "index.html").as_uri())
    assert page.locator("table.standings tbody tr").count() == 5
    assert page.evaluate("getComputedStyle(document.querySelector('header')).display") == "flex", "the stylesheet loaded"
    assert page.locator("[data-testid=league-state]").inner_text() == "finished (time budget)"
    page.screenshot(path=tmp_path / "export-index.png", full_page=True)
    page.click("table.standings a:text-is('cheat')")
    assert page.locator("tr.fault-row[data-kind=illegal]").count() == 1
    page.locator("table.games a").first.click()
    page.wait_for_selector("section.step")
    assert step_number(page) == 1
    visible_step(page).locator("a.next").click()
    assert step_number(page) == 2
    assert page.locator(".game-faults li[data-kind=illegal]").count() >= 1, "the viewer's fault marks work from disk"
    page.click("header a:text-is('Head-to-head')")
    assert page.locator("table.h2h tbody tr").count() == 5
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
