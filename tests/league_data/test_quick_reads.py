"""The read commands start quickly whatever the machine's load: their time is their CPU,
so they do little (bench/NOTES.md, B12: `referee faults` and `standings` took 24-30 s at
load 40 for 2 s of CPU). The standings come from a small summary per game, never from
whole records; `referee faults` loads neither the statistics nor the league's machinery."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.game.records import GameRecord, OverloadRecord
from referee.results.store import ResultsStore
from referee.standings.table import PlayedGame, compute_standings
from tests.conftest import REPO
from tests.league_data.test_store import open_store, sample_records


def test_the_standings_read_only_the_summaries_and_equal_those_of_the_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = sample_records()
    with open_store(tmp_path / "demo.sqlite") as store:
        for record in records:
            store.save_game(record)
        expected = compute_standings(store.records())
        monkeypatch.setattr(GameRecord, "from_json", lambda data: pytest.fail("a whole record was read"))
        played = list(store.played_games())
        assert [game.game_id for game in played] == [record.game_id for record in records]
        assert compute_standings(played) == expected


def test_a_summary_round_trips_through_json() -> None:
    for record in sample_records():
        game = PlayedGame.of(record)
        assert PlayedGame.from_json(json.loads(json.dumps(game.to_json()))) == game


def test_a_file_without_summaries_still_gives_its_standings(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with open_store(path) as store:
        for record in sample_records():
            store.save_game(record)
        expected = compute_standings(store.records())
    import sqlite3

    with sqlite3.connect(path) as db:  # as written before summaries were kept
        db.execute("DROP TABLE summaries")
    with ResultsStore.open_existing(path) as store:
        assert compute_standings(store.played_games()) == expected


def test_overloads_are_kept_per_bot(tmp_path: Path) -> None:
    record = sample_records()[0]
    record.overloads = [OverloadRecord(0, "a", 4, 2, (1300.0, 40.0), (1250.0, 0.0), 40.0), OverloadRecord(1, "b", 7, 1, (900.0,), (700.0,), 200.0)]
    with open_store(tmp_path / "demo.sqlite") as store:
        store.save_game(record)
        assert store.overloads() == {"a": (1, 1), "b": (1, 0)}
        assert store.record(record.game_id).overloads == record.overloads


@pytest.mark.parametrize("command", ["faults", "standings"])
def test_a_read_command_loads_no_league_machinery(tmp_path: Path, command: str) -> None:
    path = tmp_path / "demo.sqlite"
    with open_store(path) as store:
        for record in sample_records():
            store.save_game(record)
    probe = (
        "import sys, contextlib, io\n"
        "from referee.cli.main import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()): code = main([{command!r}, {str(path)!r}])\n"
        "print(code, sorted(m for m in ('grpc', 'trio', 'scipy.stats', 'referee.league.pool', 'pydantic') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n")[0] == "0 []", done.stdout + done.stderr
