"""The rules line under the standings names only the rules that differ from the defaults,
so it fits in 100 columns, in ``referee run``, ``referee standings`` and ``referee play``
(issue 18)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from referee.game.rules import Rules
from referee.report.standings_table import print_standings
from referee.standings.table import compute_standings
from tests.league_data.league_records import game_record
from tests.replay.helpers import play, referee

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"

# (rules, the exact line)
LINES: list[tuple[Rules, str]] = [
    (Rules(), "rules: defaults"),
    (Rules(dog_life="off"), "rules: dog_life=off (defaults otherwise)"),
    (Rules(allow_no_trump=True, start_hand_size=5), "rules: allow_no_trump=true, start_hand_size=5 (defaults otherwise)"),
    (
        Rules(required_tricks="strict", dog_life="any_round", dog_play="first_trick"),
        "rules: required_tricks=strict, dog_life=any_round, dog_play=first_trick (defaults otherwise)",
    ),
    (
        Rules("strict", "any_round", "first_trick", "bottom", "cut", True, "trump_chooser", 5),
        "rules: required_tricks=strict, dog_life=any_round, dog_play=first_trick, turn_up=bottom, trump_tiebreak=cut, "
        "allow_no_trump=true, first_lead=trump_chooser, start_hand_size=5",
    ),
]


@pytest.mark.parametrize(("rules", "line"), LINES, ids=[line for _, line in LINES])
def test_the_rules_line_names_only_what_differs(rules: Rules, line: str) -> None:
    assert f"rules: {rules.summary()}" == line


@pytest.mark.parametrize(("rules", "line"), LINES[:4], ids=[line for _, line in LINES[:4]])
def test_the_rules_line_under_the_standings_is_one_line_at_100_columns(rules: Rules, line: str) -> None:
    records = [game_record(f"g{i}", ["heuristic", "heuristic-2", "random", "random-2"], [1, 2, 3, 4]) for i in range(4)]
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system=None)  # a terminal of 100 columns
    print_standings(console, compute_standings(records), title="Standings", rules_line=f"rules: {rules.summary()}")
    out = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert line in [text.rstrip() for text in out]
    assert max(len(text) for text in out) <= 100


def test_every_rule_changed_wraps_between_rules_never_inside_one() -> None:
    rules, line = LINES[-1]
    console = Console(file=io.StringIO(), width=100)
    console.print(f"rules: {rules.summary()}")
    out = [text.rstrip() for text in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]
    assert len(out) == 2 and all(len(text) <= 100 for text in out)
    assert " ".join(out) == line


def test_play_and_standings_print_the_short_rules_line(short_tmp: Path) -> None:
    results = short_tmp / "play.sqlite"
    done = referee("play", "heuristic", "random", "--sandbox", "none", "--results", results, "--games", "2", "--rule", "dog_life=off")
    assert done.returncode == 0, done.stderr
    assert "rules: dog_life=off (defaults otherwise)" in [text.rstrip() for text in done.stdout.splitlines()]
    standings = referee("standings", results)
    assert "rules: dog_life=off (defaults otherwise)" in [text.rstrip() for text in standings.stdout.splitlines()]


def test_run_prints_the_short_rules_line(short_tmp: Path) -> None:
    config = short_tmp / "night.toml"
    config.write_text(
        f'[league]\ntable_size = 2\nresults = "{short_tmp / "night.sqlite"}"\n[rules]\nstart_hand_size = 5\n'
        '[sandbox]\nmode = "none"\n'
        f'[[bots]]\nname = "josé"\ncommand = ["python", "{SAMPLES / "heuristic_bot.py"}"]\n'
        f'[[bots]]\nname = "random"\ncommand = ["python", "{SAMPLES / "random_bot.py"}"]\n'
    )
    done = referee("run", config, "--no-live")
    assert done.returncode == 0, done.stderr
    lines = [text.rstrip() for text in done.stdout.splitlines()]
    assert lines.count("rules: start_hand_size=5 (defaults otherwise)") == 2  # at the start, and under the standings
    assert any("josé" in text for text in lines)
