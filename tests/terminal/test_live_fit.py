"""The live view fits the terminal: rendered at 100x30 and 160x50 with 30 bots of a movement
league under a minutes budget (the league-level progress line, the site's address on top)
and compared with checked-in text (``tests/terminal/golden``; regenerate with
``UPDATE_GOLDEN=1``)."""

from __future__ import annotations

import io
import itertools
import os
from pathlib import Path

import pytest
from rich.console import Console

from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.league.progress import Plan, league_progress
from referee.report.live import STARTING, ProgressLine, live_view, placement_line
from referee.report.standings_table import print_standings
from referee.standings.table import Standings, compute_standings
from tests.league_data.league_records import game_record

GOLDEN = Path(__file__).parent / "golden"
NAMES = [f"student-{number:02d}" for number in range(1, 29)] + ["a-rather-long-bot-name-x", "heuristic"]


def league(games: int = 120) -> tuple[Standings, GameRecord]:
    """30 bots at tables of 4, placements and faults from a fixed pattern."""
    records = []
    cycle = itertools.cycle(range(30))
    for number in range(games):
        seats = [NAMES[next(cycle)] for _ in range(4)]
        strength = [NAMES.index(name) * 3 + (number * 7 + seat * 5) % 40 for seat, name in enumerate(seats)]
        order = sorted(range(4), key=lambda seat: -strength[seat])
        placements = [order.index(seat) + 1 for seat in range(4)]
        faults = [FaultRecord("timeout", 2, seats[2], 5, "no answer within 1000 ms")] if number % 7 == 0 else []
        if number % 11 == 0:
            faults.append(FaultRecord("illegal", 1, seats[1], 9, "2S is not legal here"))
        actions = [ActionRecord(seat, "play", "AS", 1.0 + (number * 7 + seat * 13) % 40) for seat in range(4) for _ in range(3)]
        records.append(game_record(f"t{number:03d}-d0-r0", seats, placements, fixture=number, faults=faults, actions=actions))
    return compute_standings(records, bots=NAMES), records[-1]


SITE = "http://127.0.0.1:8000/"
PLAN = Plan(games_per_round=60, minutes=10.0)  # 30 bots at tables of 4: 60 games a round, a 10-minute budget


def render(width: int, height: int, *, starting: bool = False, site: str | None = SITE) -> str:
    """The live view 125 games into the league (round 3 begun, 2:50 played: at that rate 7
    rounds fit in 10 minutes), or before the first game."""
    console = Console(width=width, height=height, file=io.StringIO(), record=True, color_system=None, legacy_windows=False, _environ={})
    done = 0 if starting else 125
    progress = league_progress(
        PLAN, done=done, rounds_started=1 if starting else 3, elapsed_s=3.0 if starting else 170.0,
        rate=None if starting else 125 / 170, state="starting" if starting else "running",
    )  # fmt: skip
    standings, last = league()
    view = live_view(
        console, ProgressLine(lambda: progress), None if starting else standings, status=STARTING if starting else None,
        last="" if starting else placement_line(last), site=site,
    )  # fmt: skip
    console.print(view)
    return console.export_text()


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs; run with UPDATE_GOLDEN=1 after checking the new text"


@pytest.mark.parametrize("width,height", [(100, 30), (160, 50)])
def test_the_live_view_fits_the_terminal(width: int, height: int) -> None:
    text = render(width, height)
    lines = text.splitlines()
    assert len(lines) <= height
    assert all(len(line) <= width for line in lines)
    assert lines[0].strip() == f"site: {SITE}", "the address stays on screen, on top"
    progress = lines[1]
    assert "125/~420 games" in progress and "round 3 of ~7" in progress, progress
    assert "elapsed 2:50" in progress and "ETA ~6:41 (budget 10:00)" in progress, progress
    for header in ("#", "bot", "points", "faults"):
        assert f" {header} " in text
    assert "timeout" in text and "illegal" in text, "fault kinds are never cut"
    check_golden(f"live_{width}x{height}.txt", text)


def test_more_bots_than_lines_shows_the_top_rows_and_how_many_more() -> None:
    text = render(100, 30)
    rows = [line for line in text.splitlines() if line.startswith("│") and line.split("│")[1].strip()]  # a place
    assert 10 < len(rows) < 30
    assert f"… {30 - len(rows)} more" in text
    assert "full table is printed at the end" in text
    assert "not shown at 100 columns:" in text


def test_all_bots_fit_in_a_tall_terminal() -> None:
    text = render(160, 50)
    assert all(f" {name} " in text for name in NAMES)
    assert "… " not in text and "below the screen" not in text and "not shown" not in text


def test_the_live_view_fills_the_screen_so_its_top_line_is_its_own() -> None:
    """Issue 41: at 100x30 the screen's top line was a fragment of a wrapped line printed
    before the live view (which kept its last line free). The view now takes every line:
    whatever was printed before scrolls above it."""
    lines = render(100, 30).splitlines()
    assert len(lines) == 30 and lines[0].startswith("site: ")


def test_bot_start_up_shows_as_a_status_line() -> None:
    text = render(100, 30, starting=True, site=None)
    assert text.splitlines()[0].startswith("starting the bots")
    assert "0 games · round 1 · elapsed 0:03 · ETA estimating… (budget 10:00)" in text


def test_the_full_table_at_the_end_has_every_bot_and_fits_the_width() -> None:
    console = Console(
        width=100, file=io.StringIO(), record=True, color_system=None, legacy_windows=False, _environ={}, force_terminal=True
    )
    print_standings(console, league()[0], title="Standings — night")
    text = console.export_text()
    assert all(f" {name} " in text for name in NAMES)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert "not shown at 100 columns:" in text


def test_the_full_table_to_a_file_or_a_pipe_keeps_every_column() -> None:
    """Standings written to a file are read later, at any width: no column drops, the
    decision times included (issue 37)."""
    console = Console(width=100, file=io.StringIO(), record=True, color_system=None, legacy_windows=False, _environ={})
    assert not console.is_terminal
    print_standings(console, league()[0], title="Standings — night")
    text = console.export_text()
    assert "ms p50/p95" in text and "rating μ±σ" in text and "place" in text
    assert "not shown" not in text and "…" not in text.split("Head to head")[0]
    assert console.width == 100, "the console is left as it was"
