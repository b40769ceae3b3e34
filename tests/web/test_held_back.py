"""Issue 23: the site and its export keep a deal closed until every rotation of it has been
played: no page, log or exported file shows a hand of a game whose deal has a rotation still
to play (a student reading the site could tell a bot the cards of the rotations to come).
The standings count such a game at once."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from referee.errors import StoreError
from referee.game.records import FaultRecord
from referee.results.store import ResultsStore
from referee.web.data import HeldBack, SiteData, held_back
from referee.web.export import export_html
from referee.web.render import Pages
from tests.conftest import REPO, write_config
from tests.league_data.league_records import game_record
from tests.web.test_browser import Referee

SAMPLES = REPO / "sample_bots" / "python"
E2E_BOTS = REPO / "tests" / "e2e" / "bots"
BOTS = Path(__file__).parent / "bots"
GAME_LINK = re.compile(r'href="(?:\.\./)*games/([^"#]+?)(?:-seat\d+)?\.html(?:#[^"]*)?"')


def two_rotation_deal(tmp_path: Path, *, both: bool) -> ResultsStore:
    """A store holding rotation 1 of a deal at a table of 2 (and rotation 2 when ``both``),
    the cheat's fault (with its hand in the request) in rotation 1."""
    store = ResultsStore.open(tmp_path / "r.sqlite", league="night", fingerprint="f", config_text="", resume=False)
    fault = FaultRecord("illegal", 1, "cheat", 4, "AS is not legal here", request='{"hand": ["2C"]}', answer="AS", ms=3.0)
    first = game_record("t1-d1-r1", ["good", "cheat"], [1, 2], fixture=0, faults=[fault], league="night")
    store.save_game(first)
    if both:
        second = game_record("t1-d1-r2", ["cheat", "good"], [2, 1], fixture=1, league="night")
        store.save_game(replace(second, table=first.table, seed=first.seed, rotation=1))
    return store


def test_held_back_are_the_games_of_deals_missing_a_rotation() -> None:
    one = game_record("a-r1", ["x", "y"], [1, 2], fixture=0)
    two = replace(game_record("a-r2", ["y", "x"], [1, 2], fixture=1), table=one.table, seed=one.seed, rotation=1)
    other = game_record("b-r1", ["x", "y"], [2, 1], fixture=2)
    assert held_back([one]) == {"a-r1"}
    assert held_back([one, two]) == frozenset()
    assert held_back([one, two, other]) == {"b-r1"}
    assert held_back([replace(one, table=("x", "y", "z"), seats=("x", "y", "z"), placements=(1, 2, 3)), two]) >= {"a-r1"}


def test_a_game_of_an_unfinished_deal_is_neither_served_nor_exported_but_counted(tmp_path: Path) -> None:
    with two_rotation_deal(tmp_path, both=False) as store:
        pages = Pages(SiteData(store), live=True)
        with pytest.raises(HeldBack):
            pages.game("t1-d1-r1", None)
        with pytest.raises(HeldBack):
            pages.game("t1-d1-r1", 0)
        with pytest.raises(StoreError):
            pages.game("t9-d9-r9", None)
        assert "games/t1-d1-r1" not in pages.games() and "t1-d1-r1" in pages.games()
        bot = pages.bot("cheat")
        assert "games/t1-d1-r1" not in bot and "2C" not in bot and "shown once every rotation" in bot
        assert pages.data.snapshot().standings.row("cheat").games == 1, "the standings count it at once"
        assert not pages.data.log_shown("[referee] game t1-d1-r1: seat 1\n")
        export_html(store, tmp_path / "site")
    assert not list((tmp_path / "site" / "games").glob("*.html"))


def test_once_every_rotation_is_played_the_deal_is_shown(tmp_path: Path) -> None:
    with two_rotation_deal(tmp_path, both=True) as store:
        pages = Pages(SiteData(store), live=True)
        assert "Game t1-d1-r1" in pages.game("t1-d1-r1", None)
        assert "games/t1-d1-r1.html#seat=1" in pages.bot("cheat")
        assert pages.data.log_shown("[referee] game t1-d1-r1: seat 1\n[referee] game t1-d1-r2: seat 0\n")
        export_html(store, tmp_path / "site")
    assert len(list((tmp_path / "site" / "games").glob("*.html"))) == 2


def test_referee_play_games_are_never_held_back(tmp_path: Path) -> None:
    """``referee play``'s own games (no standings at stake) show at once."""
    store = ResultsStore.open(tmp_path / "p.sqlite", league="play", fingerprint="play", config_text="", resume=False)
    with store:
        store.save_game(game_record("play-1", ["a", "b"], [1, 2], fixture=0, league="play"))
        assert "Game play-1" in Pages(SiteData(store), live=False).game("play-1", None)


@dataclass
class Watch:
    """What the test saw of the site while the league ran."""

    results: Path
    held_seen: set[str] = field(default_factory=set)  # games seen held back (stored, deal unfinished)
    shown: set[str] = field(default_factory=set)  # games whose pages were served
    violations: list[str] = field(default_factory=list)

    def unfinished(self) -> set[str]:
        """The stored games whose deal has a rotation still to play, read now."""
        try:
            with ResultsStore.open_existing(self.results) as store:
                return set(held_back(list(store.records())))
        except StoreError:
            return set()

    def check(self, where: str, text: str, game_page: str | None = None) -> None:
        """After fetching ``where``: no link, fault example or log line names a game of an
        unfinished deal, nor is ``game_page`` (the game a viewer page shows) one."""
        unfinished = self.unfinished()  # read after the fetch: a deal never becomes unfinished again
        named = set(GAME_LINK.findall(text))
        faults = text.split('<table class="faults">', 1)[1].split("</table>", 1)[0] if '<table class="faults">' in text else ""
        named |= {game for game in unfinished if game in faults}
        named |= set(re.findall(r"\[referee\] game (\S+): seat", text))
        if game_page is not None:
            named.add(game_page)
            self.shown.add(game_page)
        for game in named & unfinished:
            self.violations.append(f"{where} shows {game}, whose deal has a rotation still to play")


def fetch(url: str) -> tuple[int, str]:
    """(status, text); (0, "") once the site is gone (the league ended, and its site with it)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, ""
    except (urllib.error.URLError, ConnectionError):
        return 0, ""


def stored_ids(results: Path) -> list[str]:
    try:
        with ResultsStore.open_existing(results) as store:
            return sorted(store.finished_game_ids())
    except StoreError:
        return []


def look_at_the_site(site: str, watch: Watch, bots: Iterable[str]) -> None:
    """Every page once: lists, bots (and the logs they link), every stored game's viewers."""
    for path in ("index.html", "games.html", "h2h.html", *(f"bots/{bot}.html" for bot in bots)):
        status, text = fetch(site + path)
        if status == 200:
            watch.check(path, text)
            for log in re.findall(r'href="(?:\.\./)*(logs/[^"]+)"', text):
                log_status, log_text = fetch(site + log)
                if log_status == 200:
                    watch.check(log, log_text)
    before = set(stored_ids(watch.results))
    unfinished_before = watch.unfinished()
    watch.held_seen |= unfinished_before & before
    for game in sorted(before):
        for page in (f"games/{game}.html", f"games/{game}-seat0.html", f"games/{game}-seat1.html"):
            status, text = fetch(site + page)
            if status == 200:
                watch.check(page, text, game_page=game)


def look_at_an_export(results: Path, folder: Path, watch: Watch) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "export", str(results), "--format", "html", str(folder)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for path in folder.rglob("*.html"):
        text = path.read_text(errors="replace")
        page = path.stem.split("-seat")[0] if path.parent.name == "games" else None
        watch.check(f"export {path.relative_to(folder)}", text, game_page=page)


def test_during_a_league_no_page_log_or_export_shows_a_hand_of_an_unfinished_deal(tmp_path: Path) -> None:
    results = tmp_path / "held.sqlite"
    bots = {"slow": BOTS / "slow_bot.py", "cheat": E2E_BOTS / "cheat_bot.py", "random": SAMPLES / "random_bot.py"}
    lines = [
        "[league]", 'name = "held"', "seed = 4", "table_size = 2", "deals = 2", "concurrency = 1", f'results = "{results}"',
        "[time]", "move_ms = 2000", "startup_ms = 30000", "[faults]", "max_faults = 3",
    ]  # fmt: skip
    for name, script in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{script}"]']
    config = write_config(tmp_path / "held.toml", "\n".join(lines) + "\n")
    referee = Referee.start("run", str(config), "--no-live", "--serve", "0", "--show-logs")
    watch = Watch(results)
    try:
        site = referee.url()
        exports = 0
        while referee.process.poll() is None:
            look_at_the_site(site, watch, bots)
            if exports < 3 and stored_ids(results):
                exports += 1
                look_at_an_export(results, tmp_path / f"site{exports}", watch)
            assert not watch.violations, watch.violations[:5]
            time.sleep(0.05)
        assert referee.process.wait(timeout=60) == 0, "".join(referee.lines)
    finally:
        referee.stop()
    assert not watch.violations, watch.violations[:5]
    assert watch.held_seen, "the test saw a game held back while its deal was played"
    assert len(stored_ids(results)) == 12, "the league completed"
    assert not watch.unfinished()
    with ResultsStore.open_existing(results) as store:
        pages = Pages(SiteData(store), live=False)
        assert all(f"Game {game}" in pages.game(game, None) for game in stored_ids(results)), "every game shows once the league is over"
