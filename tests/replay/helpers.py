"""Shared helpers of the replay tests: play games through the real CLI, read and edit
the results file the way a user's tools would (sqlite3 and JSON)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import run_referee

BOTS = Path(__file__).parent / "bots"


def referee(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_referee(*(str(arg) for arg in args))


def play(results: Path, *extra: str | Path, bots: tuple[str, ...] = ("heuristic", "random")) -> None:
    """``referee play BOTS --sandbox none --results RESULTS EXTRA...``; asserts exit 0."""
    done = referee("play", *bots, "--sandbox", "none", "--results", results, *extra)
    assert done.returncode == 0, done.stderr


def stored(results: Path, game_id: str) -> dict[str, Any]:
    """The stored record of ``game_id`` as JSON data, read straight from SQLite."""
    with sqlite3.connect(results) as db:
        row = db.execute("SELECT record FROM games WHERE game_id = ?", (game_id,)).fetchone()
    assert row is not None, game_id
    data: dict[str, Any] = json.loads(row[0])
    return data


def game_ids(results: Path) -> list[str]:
    with sqlite3.connect(results) as db:
        return [row[0] for row in db.execute("SELECT game_id FROM games ORDER BY fixture")]


def copy_results(source: Path, target: Path) -> None:
    """Copy a results file with SQLite's backup (a WAL file may hold part of it)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def tamper(results: Path, game_id: str, data: dict[str, Any]) -> None:
    """Overwrite the stored record of ``game_id`` with ``data``."""
    with sqlite3.connect(results) as db:
        db.execute("UPDATE games SET record = ? WHERE game_id = ?", (json.dumps(data), game_id))


def without_times(record: dict[str, Any]) -> dict[str, Any]:
    """A record without what the clock decides (the ms of each action and fault)."""
    copy = json.loads(json.dumps(record))
    for action in copy["actions"]:
        action["ms"] = None
    for fault in copy["faults"]:
        fault["ms"] = None
    return copy


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one stderr line of a refused command (asserts exit 2 and exactly one line)."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1, done.stderr
    return lines[0]
