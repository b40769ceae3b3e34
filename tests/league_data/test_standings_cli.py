"""Issue 41: ``referee standings RESULTS --bot NAME``, each student's own line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from referee.results.store import ResultsStore
from tests.conftest import run_referee
from tests.league_data.league_records import game_record


def three_bots(path: Path) -> Path:
    """12 deals at one table of 3, every rotation: ann beats bob beats cy every time."""
    names = ["ann", "bob", "cy"]
    with ResultsStore.open(path, league="night", fingerprint="f", config_text="", resume=False) as store:
        for deal in range(12):
            for rotation in range(3):
                seats = names[rotation:] + names[:rotation]
                places = [1 + names.index(bot) for bot in seats]
                record = game_record(f"d{deal}-r{rotation}", seats, places, fixture=deal * 3 + rotation, league="night")
                store.save_game(dataclasses.replace(record, seed=deal))
    return path


def test_a_students_own_line_in_the_terminal_and_as_json(tmp_path: Path) -> None:
    results = three_bots(tmp_path / "r.sqlite")
    done = run_referee("standings", str(results), "--bot", "bob")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("bob: place 2 of 3, group b, strength 1.00 pts/g")
    assert lines[1] == "told apart from 2 bots: above 1, below 1; not told apart from 0"
    assert "  above: cy" in lines and "  below: ann" in lines
    assert any(line.startswith("told apart: ") and "for that bot alone (95%)" in line for line in lines), "what the claim means"
    data = json.loads(run_referee("standings", str(results), "--bot", "bob", "--format", "json").stdout)
    assert data["bot"] == "bob" and data["own_line"]["above"] == ["cy"] and data["own_line"]["below"] == ["ann"]


def test_an_unknown_bot_is_one_line(tmp_path: Path) -> None:
    done = run_referee("standings", str(three_bots(tmp_path / "r.sqlite")), "--bot", "dee")
    assert done.returncode == 2 and "no bot named 'dee'" in done.stderr and "Traceback" not in done.stderr
