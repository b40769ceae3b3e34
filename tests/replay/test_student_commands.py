"""Student-facing command details (issue 13): ``referee play --preset``, the seat named in
the hint after ``referee play``, the legend of ``*`` in traces, and no traceback when the
reader of a command's output stops early (``| head``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.replay.helpers import referee, stored

CHEAT = REPO / "tests" / "e2e" / "bots" / "cheat_bot.py"
LEGEND = "* a card the referee played for the bot"


def play(results: Path, *extra: str, bots: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    done = referee("play", *bots, "--sandbox", "none", "--results", results, *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def cheated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One game in which the student's bot (a cheat, named second) faults; and play's output."""
    results = tmp_path_factory.mktemp("student") / "games.sqlite"
    done = play(results, "--seed", "3", bots=("heuristic", f"python {CHEAT}", "random"))
    return results, done.stdout


def test_the_hint_after_play_names_the_students_bot_and_its_seat(cheated: tuple[Path, str]) -> None:
    results, out = cheated
    assert stored(results, "play-1")["seats"].index("cheat_bot") == 1
    hint = " ".join(out.split())  # the console may wrap the line
    assert "cheat_bot (seat 1)" in hint and "play-1 --seat 1" in hint, out
    assert "--seat 0" not in hint


def test_a_trace_with_referee_played_cards_explains_the_star(cheated: tuple[Path, str]) -> None:
    results, _ = cheated
    done = referee("replay", results, "play-1")
    assert done.returncode == 0, done.stderr
    assert "* " in done.stdout and LEGEND in " ".join(done.stdout.split())


def test_a_trace_without_them_has_no_legend(tmp_path: Path) -> None:
    results = tmp_path / "clean.sqlite"
    play(results, bots=("heuristic", "random"))
    done = referee("replay", results, "play-1")
    assert done.returncode == 0 and LEGEND not in " ".join(done.stdout.split())


@pytest.mark.parametrize(("preset", "faults"), [("league", 3), ("strict", 1)])
def test_preset_sets_the_fault_policy(tmp_path: Path, preset: str, faults: int) -> None:
    results = tmp_path / "games.sqlite"
    play(results, "--preset", preset, bots=(f"python {CHEAT}", "heuristic"))
    record = stored(results, "play-1")
    assert len(record["faults"]) == faults  # then the cheat forfeits and the referee plays its seat
    assert record["placements"][0] == 2


def test_preset_debug_lifts_the_time_limit_and_traces_every_request(tmp_path: Path) -> None:
    results = tmp_path / "games.sqlite"
    done = play(results, "--preset", "debug", bots=("heuristic", "random"))
    trace = tmp_path / "games" / "trace" / "play-1.jsonl"
    assert trace.is_file(), done.stdout
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert lines and all(line["request"].get("time_left_ms", 0) == 0 for line in lines)  # 0: no limit (unset in JSON)


def run_with_closed_stdout(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """Run the referee with stdout a pipe whose reader is already gone (as after `| head`)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "referee", *(str(arg) for arg in args)], stdout=write, stderr=subprocess.PIPE, cwd=REPO, timeout=240
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "command",
    [("standings", "--format", "json"), ("standings", "--format", "csv"), ("standings",), ("replay",), ("replay", "play-1"), ("faults",)],
)
def test_a_reader_that_stops_early_gets_no_traceback(cheated: tuple[Path, str], command: tuple[str, ...]) -> None:
    results, _ = cheated
    done = run_with_closed_stdout(command[0], results, *command[1:])
    assert b"Traceback" not in done.stderr and b"BrokenPipeError" not in done.stderr, done.stderr.decode()
    assert done.returncode != 0
