"""The standings table as printed, live and at the end: the ranking key, rank ranges, the
separation line, and the head-to-head table."""

from __future__ import annotations

import dataclasses

from rich.console import Console
from tests.league_data.league_records import game_record

from referee.league.progress import Plan, league_progress
from referee.report.live import LiveReporter
from referee.report.standings_table import head_to_head_table, print_standings, separation_line, standings_table
from referee.standings.table import compute_standings


def text(renderable: object, width: int = 160) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def bot_order(rendered: str, names: list[str]) -> list[str]:
    lines = rendered.splitlines()
    found = [(next(i for i, line in enumerate(lines) if f" {name} " in line), name) for name in names]
    return [name for _, name in sorted(found)]


def test_live_table_ranks_by_points_per_game_when_game_counts_differ() -> None:
    """Issue 18: mid-league, 'busy' has played 6 games (3 points), 'fresh' 2 (2 points)."""
    records = [game_record(f"b{i}", ["busy", "slow"], [1, 2] if i < 3 else [2, 1], fixture=i) for i in range(6)]
    records += [game_record(f"f{i}", ["fresh", "slow"], [1, 2], fixture=10 + i) for i in range(2)]
    standings = compute_standings(records)
    assert standings.row("busy").points > standings.row("fresh").points
    progress = league_progress(Plan(games=20), done=8, rounds_started=0, elapsed_s=8.0, rate=1.0, state="running")
    live = LiveReporter(Console(width=160, record=True, color_system=None), lambda done: progress, done=8, standings=lambda: standings)
    live._render(force=True)
    rendered = text(live.view())  # what the live display shows now
    assert bot_order(rendered, ["busy", "fresh", "slow"]) == ["fresh", "busy", "slow"]
    assert "pts/g" in rendered and "95% interval" in rendered


def test_ranges_shared_ranks_and_the_separation_line() -> None:
    names = [f"bot{i}" for i in range(4)]
    records = [game_record(f"g{i}", [names[i % 4], names[(i + 1) % 4]], [1, 1], fixture=i) for i in range(8)]
    standings = compute_standings(records)
    rendered = text(standings_table(standings))
    assert rendered.count("1=") == 4  # an exact tie of all four: shared rank 1 (range 1–4)
    assert separation_line(standings) is not None
    assert separation_line(standings) == "#1 bot0 and #2 bot1 have equal points per game: more games may never separate them."


def test_shared_rank_without_a_range_and_look_equal_line() -> None:
    records = [game_record(f"g{i}", ["a", "b", "c"], [1, 1, 3], fixture=i) for i in range(3)]
    standings = compute_standings(records)
    rendered = text(standings_table(standings))
    assert [row.rank for row in standings.rows] == [1, 1, 3] and rendered.count("1=") == 2
    far = dataclasses.replace(standings, more_games=standings.games * 100)
    assert separation_line(far) == "#1 a and #2 b look equal: more than 20 times the games played so far would be needed to separate them."


def test_head_to_head_in_the_terminal_up_to_twelve_bots() -> None:
    records = [game_record("g1", ["a", "b", "c"], [1, 2, 3], fixture=0), game_record("g2", ["a", "b"], [2, 1], fixture=1)]
    standings = compute_standings(records)
    rendered = text(head_to_head_table(standings))
    assert "#1 a" in rendered and "0.50" in rendered and "1.00" in rendered
    console = Console(width=160, record=True, color_system=None)
    print_standings(console, standings, title="Standings")
    assert "Head to head" in console.export_text()
    many = compute_standings([game_record(f"g{i}", [f"x{i}", f"y{i}"], [1, 2], fixture=i) for i in range(7)])
    console = Console(width=200, record=True, color_system=None)
    print_standings(console, many, title="Standings")
    assert "Head to head" not in console.export_text()  # 14 bots: only with --head-to-head
