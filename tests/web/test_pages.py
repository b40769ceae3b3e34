"""Pages rendered from a real results store: bot-supplied text is escaped, standings and
faults appear, the static export writes every page with relative links only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from referee.game.records import ActionRecord, FaultRecord
from referee.results.store import ResultsStore
from referee.web.data import SiteData
from referee.web.export import export_html
from referee.web.render import Pages
from tests.league_data.league_records import game_record

EVIL = "<script>alert('x')</script>"


def store_with_games(tmp_path: Path) -> ResultsStore:
    store = ResultsStore.open(tmp_path / "r.sqlite", league="night", fingerprint="f", config_text="", resume=False)
    fault = FaultRecord("illegal", 1, "cheat", 4, f"answered {EVIL}", request="", answer=EVIL, ms=3.0)
    actions = [ActionRecord(seat, "play", "AS", 2.0 + seat) for seat in (0, 1, 1, 0)]
    first = game_record("g1", ["good", "cheat"], [1, 2], fixture=0, faults=[fault], actions=actions, league="night")
    second = game_record("g2", ["cheat", "good"], [2, 1], fixture=1, league="night")
    store.save_game(first)
    store.save_game(replace(second, table=first.table, seed=first.seed, rotation=1))  # both rotations of one deal
    return store


def test_bot_supplied_text_is_escaped_on_every_page(tmp_path: Path) -> None:
    with store_with_games(tmp_path) as store:
        pages = Pages(SiteData(store), live=True)
        bot = pages.bot("cheat")
        assert EVIL not in bot
        assert "&lt;script&gt;" in bot
        assert 'data-kind="illegal"' in bot and "<svg" in bot
        index = pages.index()
        assert 'sse-connect="events"' in index and "static/vendor/htmx.min.js" in index
        assert index.index(">good<") < index.index(">cheat<"), "ranked by points"


def test_the_static_export_has_every_page_and_no_script(tmp_path: Path) -> None:
    with store_with_games(tmp_path) as store:
        written = export_html(store, tmp_path / "site")
    names = {str(path.relative_to(tmp_path / "site")) for path in (tmp_path / "site").rglob("*.html")}
    assert {"index.html", "h2h.html", "games.html", "bots/good.html", "bots/cheat.html"} <= names
    assert written == len(names)
    assert (tmp_path / "site" / "static" / "style.css").is_file()
    bot = (tmp_path / "site" / "bots" / "cheat.html").read_text()
    assert 'href="../static/style.css"' in bot and "<script" not in bot
