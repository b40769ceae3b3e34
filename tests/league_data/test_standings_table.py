"""The standings table as printed, live and at the end: the ranking key, rank ranges, the
verdict lines, and the head-to-head table."""

from __future__ import annotations

import dataclasses

from rich.console import Console
from tests.league_data.league_records import game_record

from referee.league.progress import Plan, league_progress
from referee.report.live import LiveReporter
from referee.report.standings_table import head_to_head_table, print_standings, standings_table, verdict_lines
from referee.standings.table import compute_standings
from referee.standings.uncertainty import Verdict
from referee.standings.verdicts import Decision, Sequential


def text(renderable: object, width: int = 160) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def bot_order(rendered: str, names: list[str]) -> list[str]:
    lines = rendered.splitlines()
    found = [(next(i for i, line in enumerate(lines) if f" {name} " in line), name) for name in names]
    return [name for _, name in sorted(found)]


def test_live_table_ranks_by_strength_when_game_counts_differ() -> None:
    """Issue 18: mid-league, 'busy' has played 6 games (3 points), 'fresh' 2 (2 points)."""
    records = [game_record(f"b{i}", ["busy", "slow"], [1, 2] if i < 3 else [2, 1], fixture=i) for i in range(6)]
    records += [game_record(f"f{i}", ["fresh", "slow"], [1, 2], fixture=10 + i) for i in range(2)]
    standings = compute_standings(records)
    assert standings.row("busy").points > standings.row("fresh").points
    progress = league_progress(Plan(games=20), done=8, rounds_started=0, elapsed_s=8.0, rate=1.0, state="running")
    live = LiveReporter(Console(width=160, record=True, color_system=None), lambda done: progress, done=8, standings=lambda: standings)
    live.read_standings(force=True)
    rendered = text(live.view())  # what the live display shows now
    assert bot_order(rendered, ["busy", "fresh", "slow"]) == ["fresh", "busy", "slow"]
    assert "strength" in rendered and "pts/g" in rendered and "95% interval" in rendered


def test_ranges_shared_ranks_and_the_verdict_lines() -> None:
    names = [f"bot{i}" for i in range(4)]
    records = [game_record(f"g{i}", [names[i % 4], names[(i + 1) % 4]], [1, 1], fixture=i) for i in range(8)]
    standings = compute_standings(records)
    rendered = text(standings_table(standings))
    assert rendered.count("1=") == 4  # an exact tie of all four: shared rank 1 (range 1–4)
    assert rendered.count("—") >= 4  # 4 units a bot: too few for an interval
    assert verdict_lines(standings) == [
        "#1 bot0 / #2 bot1 too early to call: too few games yet",
        "places possible (95%, whole table at once): #1 bot0 1–4, #2 bot1 1–4",
        "#1 not decided after 8 games",
    ]
    assert "#1 not decided after 8 games" in rendered


def test_shared_rank_without_a_range() -> None:
    records = [game_record(f"g{i}", ["a", "b", "c"], [1, 1, 3], fixture=i) for i in range(8)]
    standings = compute_standings(records)
    rendered = text(standings_table(standings))
    assert [row.rank for row in standings.rows] == [1, 1, 3] and rendered.count("1=") == 2
    assert [row.rank_range for row in standings.rows] == [(1, 2), (1, 2), (3, 3)]  # c lost all 8 deals: last


def test_a_verdict_line_for_every_place_asked_and_the_summary() -> None:
    """Issue 29: ``separate = 3`` gets three lines and a summary, kept decisions with their round."""
    names = ["ann", "bob", "cy", "dee", "eve"]
    records = []
    for deal in range(12):
        table = [names[(deal + i) % 5] for i in range(4)]
        for rotation in range(4):
            seats = table[rotation:] + table[:rotation]
            places = [1 + sorted(table, key=names.index).index(bot) for bot in seats]  # ann beats bob beats ...
            records.append(dataclasses.replace(game_record(f"d{deal}-r{rotation}", seats, places, fixture=deal * 4 + rotation), seed=deal))
    kept = (Decision("ann", "bob", Verdict.AHEAD, 5, 40),)
    sequential = Sequential(separate=3, decided=kept, rounds=7, stopped="time budget")
    standings = compute_standings(records, sequential=sequential)
    lines = verdict_lines(standings)
    assert [row.bot for row in standings.rows] == names
    assert len(lines) == 5 and lines[0] == "#1 ann ahead of #2 bob (decided after 5 rounds)"
    assert lines[1].startswith("#2 bob ") and lines[2].startswith("#3 cy ")
    assert lines[3] == "places possible (95%, whole table at once): #1 ann 1, #2 bob 2, #3 cy 3, #4 dee 4"
    assert lines[4] in ("top 3 not decided after 7 rounds (time budget)", "top 3 decided after 7 rounds")
    rendered = text(standings_table(standings))
    assert all(line in rendered for line in lines)


def test_head_to_head_in_the_terminal_up_to_twelve_bots() -> None:
    records = [game_record("g1", ["a", "b", "c"], [1, 2, 3], fixture=0), game_record("g2", ["a", "b"], [2, 1], fixture=1)]
    standings = compute_standings(records)
    rendered = text(head_to_head_table(standings))
    assert "#1 b" in rendered and "#2 a" in rendered and "0.50" in rendered and "1.00" in rendered
    console = Console(width=160, record=True, color_system=None)
    print_standings(console, standings, title="Standings")
    assert "Head to head" in console.export_text()
    many = compute_standings([game_record(f"g{i}", [f"x{i}", f"y{i}"], [1, 2], fixture=i) for i in range(7)])
    console = Console(width=200, record=True, color_system=None)
    print_standings(console, many, title="Standings")
    assert "Head to head" not in console.export_text()  # 14 bots: only with --head-to-head


def test_a_bot_without_games_says_so_and_is_not_ranked() -> None:
    """Issue 41: bots with 0 games ranked ``26=`` under bots with 1 game."""
    records = [game_record("g1", ["a", "b"], [1, 2], fixture=0)]
    standings = compute_standings(records, bots=["a", "b", "new"])
    rendered = text(standings_table(standings))
    row = next(line for line in rendered.splitlines() if " new " in line)
    assert "no games yet" in row and "3" not in row.split("│")[1], row
    assert standings.row("new").rank is None and standings.row("new").place_text == ""
