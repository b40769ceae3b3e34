"""Pages rendered from a real results store: bot-supplied text is escaped, standings and
faults appear, the static export writes every page with relative links only."""

from __future__ import annotations

import re
from pathlib import Path

from referee.game.records import ActionRecord, FaultRecord
from referee.results.store import ResultsStore
from referee.web.data import SiteData
from referee.web.export import export_html
from referee.web.render import Pages
from tests.league_data.league_records import game_record, rotated

EVIL = "<script>alert('x')</script>"


def store_with_games(tmp_path: Path) -> ResultsStore:
    store = ResultsStore.open(tmp_path / "r.sqlite", league="night", fingerprint="f", config_text="", resume=False)
    fault = FaultRecord("illegal", 1, "cheat", 4, f"answered {EVIL}", request="", answer=EVIL, ms=3.0)
    actions = [ActionRecord(seat, "play", "AS", 2.0 + seat) for seat in (0, 1, 1, 0)]
    first = game_record("g1", ["good", "cheat"], [1, 2], fixture=0, faults=[fault], actions=actions, league="night")
    store.save_game(first)
    store.save_game(rotated(first, "g2", fixture=1))  # the deal's other rotation: both games are shown
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


def test_the_static_export_has_every_page_and_only_its_own_script(tmp_path: Path) -> None:
    with store_with_games(tmp_path) as store:
        written = export_html(store, tmp_path / "site")
    names = {str(path.relative_to(tmp_path / "site")) for path in (tmp_path / "site").rglob("*.html")}
    assert names == {"index.html", "h2h.html", "games.html", "bots/good.html", "bots/cheat.html", "games/g1.html", "games/g2.html"}
    assert written == len(names), "one page per game: every seat's view is drawn from its record"
    assert (tmp_path / "site" / "static" / "style.css").is_file() and (tmp_path / "site" / "static" / "viewer.js").is_file()
    bot = (tmp_path / "site" / "bots" / "cheat.html").read_text()
    assert 'href="../static/style.css"' in bot and "htmx" not in bot, "no live updates in the export"
    game = (tmp_path / "site" / "games" / "g1.html").read_text()
    assert '<script src="../static/viewer.js"></script>' in game and '<script type="application/json" id="game-record">' in game
    assert EVIL not in game, "bot-supplied text cannot close the record's script element"


def visible_text(html: str) -> str:
    """The text of a page as read (no scripts, no tags)."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<script[^>]*>.*?</script>", " ", html, flags=re.S))


DEADLINE = FaultRecord(
    "timeout", 0, "sleepy", 3, "deadline of 1100 ms exceeded", request='{"protocol_major":1}',
    answer="DEADLINE_EXCEEDED: Stream removed (Deadline Exceeded)", ms=1101.0,
)  # fmt: skip
CRASH = FaultRecord(
    "startup", 1, "crashy", None,
    "bot crashy: its process ended before answering Hello; exited with code 1; stderr: File \"/home/teacher/bots/crashy.py\", line 3; "
    "ran: /usr/bin/python3 /home/teacher/bots/crashy.py; log /home/teacher/results/night/crashy-0.log",
    request='{"protocol_major":1,"protocol_minor":0,"referee_version":"0.1.0"}', answer="UNAVAILABLE: Socket closed; exited with code 1",
)  # fmt: skip


def test_student_pages_say_what_happened_without_grpc_words_or_host_paths(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "r.sqlite", league="night", fingerprint="f", config_text="", resume=False)
    actions = [ActionRecord(seat, "play_card", "AS", 2.0) for seat in (0, 1, 0, 1)]
    first = game_record("g1", ["sleepy", "crashy"], [1, 2], faults=[DEADLINE, CRASH], actions=actions, league="night")
    store.save_game(first)
    store.save_game(rotated(first, "g2", fixture=1))  # the deal's other rotation: g1 is shown
    with store:
        pages = Pages(SiteData(store), live=False)
        for page in (pages.bot("sleepy"), pages.bot("crashy"), pages.game("g1")):
            assert "DEADLINE_EXCEEDED" not in page and "UNAVAILABLE" not in page and "gRPC" not in page
            assert "/home/teacher" not in page and "/usr/bin" not in page
            assert "?" not in visible_text(page), "no placeholder"
        sleepy = pages.bot("sleepy")
        assert "no answer within 1,100 ms" in sleepy and "nothing in time" in sleepy
        assert 'id="fault-g1-d3"' in sleepy, "each fault has an anchor the viewer links to"
        crashy = pages.bot("crashy")
        assert "Hello (protocol 1.0, referee 0.1.0)" in crashy and "ran: python3 crashy.py" in crashy
        assert "the connection to the bot was lost" in crashy


def test_the_standings_page_and_the_terminal_give_the_same_verdicts(tmp_path: Path) -> None:
    """Issue 29: a lesson asking for its top 3 (``separate = 3``) gets a verdict line for each
    of #1/#2, #2/#3 and #3/#4 and a summary, on the web page as in the terminal, beside the
    rank ranges, strengths with intervals and raw points per game."""
    import dataclasses
    import html
    import io

    from rich.console import Console

    from referee.config.settings import LeagueSettings
    from referee.league.budget import MovementRounds
    from referee.report.standings_table import print_standings
    from referee.standings.table import compute_standings

    names = [f"bot{i}" for i in range(8)]
    league = LeagueSettings("night", 7, 4, 1, 4, tmp_path / "r.sqlite", "movement", (), games=8 * 8, separate=3)
    with ResultsStore.open(tmp_path / "r.sqlite", league="night", fingerprint="f", config_text="", resume=False) as store:
        rounds = MovementRounds(league, names, store, lambda seq: compute_standings(store.records(), bots=names, sequential=seq), lambda line: None)
        while (batch := rounds.next_round()) is not None:
            for fixture in batch:  # the lower a bot's number, the better its placement
                order = sorted(range(4), key=lambda seat: fixture.seats[seat])
                places = [1 + order.index(seat) for seat in range(4)]
                record = game_record(fixture.game_id, fixture.seats, places, fixture=fixture.index, league="night")
                store.save_game(dataclasses.replace(record, seed=fixture.seed))
        snapshot = SiteData(store).snapshot()
        page = html.unescape(Pages(SiteData(store), live=False).index())
        console = Console(width=200, record=True, color_system=None, file=io.StringIO())
        print_standings(console, snapshot.standings, title="Standings")
        terminal = console.export_text()
    lines = snapshot.standings.verdicts.lines()
    assert len(lines) == 5 and lines[0].startswith("#1 bot0 ") and lines[2].startswith("#3 bot2 ")
    assert lines[3].startswith("places possible (95%, whole table at once): #1 bot0 ")
    assert lines[4] in ("top 3 decided after 8 rounds", "top 3 not decided after 8 rounds (games budget)") or lines[4].startswith("top 3 decided after")
    for line in [*lines, snapshot.standings.claims()["groups"]]:
        assert line in page and line in terminal
    for header in ("strength", "interval", "pts/g", "group"):
        assert header in page and header in terminal
    top = snapshot.standings.rows[0]
    assert top.strength is not None and top.strength.low is not None and top.group.startswith("a")
    assert f"{top.strength.low:.2f}–{top.strength.high:.2f}" in page and top.rank_text in page


def test_the_site_root_keeps_the_projector_view() -> None:
    """Issue 41: ``/?tv=1`` opened the normal view (the redirect to index.html dropped the query)."""
    from starlette.requests import Request

    from referee.web.app import to_index

    def location(query: bytes) -> str:
        request = Request({"type": "http", "method": "GET", "path": "/", "query_string": query, "headers": []})
        return to_index(request).headers["location"]

    assert location(b"tv=1") == "index.html?tv=1"
    assert location(b"") == "index.html"


def test_a_bot_page_shows_its_strength_its_place_and_its_own_line(tmp_path: Path) -> None:
    """Issue 41: the bot page said ``points/game (the ranking key)`` but the key is strength,
    which it did not show; and a student's own line (who the results tell apart from them)."""
    import dataclasses

    store = ResultsStore.open(tmp_path / "r.sqlite", league="night", fingerprint="f", config_text="", resume=False)
    names = ["ann", "bob", "cy"]
    for deal in range(12):
        for rotation in range(3):
            seats = names[rotation:] + names[:rotation]
            places = [1 + names.index(bot) for bot in seats]  # ann beats bob beats cy, every deal
            record = game_record(f"d{deal}-r{rotation}", seats, places, fixture=deal * 3 + rotation, league="night")
            store.save_game(dataclasses.replace(record, seed=deal))
    with store:
        pages = Pages(SiteData(store, bots=[*names, "dee"]), live=False)
        snapshot = pages.data.snapshot()
        row = snapshot.standings.row("bob")
        page = visible_text(pages.bot("bob"))
        assert "strength (the ranking key)" in page and f"{row.strength.estimate:.2f}" in page  # type: ignore[union-attr]
        assert "points/game (the ranking key)" not in page
        line = snapshot.standings.own_line("bob")
        assert line is not None and line.text() in page and "above cy" in page and "below ann" in page
        assert "places possible" in page and "no letter in common" in page
        assert "no games yet" in visible_text(pages.bot("dee"))
