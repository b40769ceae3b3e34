"""Before game 1 the referee starts each bot once, as the league will run it
(referee/league/preflight.py): the host's trouble stops the league with one line naming
the fix (exit 2), a bot's own failure is named at the start, and a league in which no bot can
play never prints standings; ``auto`` without a usable bubblewrap refuses a league."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_referee, write_config

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"
FAULT_BOTS = REPO / "tests" / "faults" / "bots"


def config(tmp: Path, bots: dict[str, Path], *, mode: str = "auto", name: str = "pre") -> Path:
    lines = [
        "[league]", f'name = "{name}"', "seed = 1", "table_size = 2", "deals = 1", "concurrency = 2",
        f'results = "{tmp / (name + ".sqlite")}"',
        "[time]", "move_ms = 2000", "startup_ms = 15000",
        "[faults]", "max_restarts = 1",
        "[sandbox]", f'mode = "{mode}"',
    ]  # fmt: skip
    for bot, script in bots.items():
        lines += ["[[bots]]", f'name = "{bot}"', f'command = ["python", "{script}"]']
    return write_config(tmp / f"{name}.toml", "\n".join(lines) + "\n")


def games_stored(results: Path) -> int:
    if not results.exists():
        return 0
    with sqlite3.connect(results) as db:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])


def test_a_bot_that_fails_on_its_own_is_named_before_game_1_and_the_league_goes_on(short_tmp: Path) -> None:
    league = config(short_tmp, {"dora": BOTS / "missing_module_bot.py", "random": SAMPLES / "random_bot.py", "heuristic": SAMPLES / "heuristic_bot.py"})
    done = run_referee("run", str(league), "--no-live")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    named = [line for line in lines if line.startswith("bot dora: does not start:")]
    assert len(named) == 1, done.stdout
    assert "ModuleNotFoundError: No module named 'kwhist_no_such_package'" in named[0]
    assert "(log: " in named[0] and "/check/dora-" in named[0]
    first_game = next(index for index, line in enumerate(lines) if line.startswith("[1/"))
    assert lines.index(named[0]) < first_game
    assert games_stored(short_tmp / "pre.sqlite") == 6  # 3 tables x 2 rotations: the league went on


def test_a_league_in_which_no_bot_can_play_stops_before_game_1_without_standings(short_tmp: Path) -> None:
    league = config(short_tmp, {"dora": BOTS / "missing_module_bot.py", "quitter": FAULT_BOTS / "dies_at_start_bot.py", "random": SAMPLES / "random_bot.py"})
    done = run_referee("run", str(league), "--no-live")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bot dora: does not start: ModuleNotFoundError" in done.stdout
    assert "bot quitter: does not start: dies_at_start: giving up before serving" in done.stdout
    assert done.stderr.strip().splitlines() == ["error: no game can be played: 1 of 3 bots starts (see the lines above); fix them and run the league again"]
    assert "Standings" not in done.stdout and "[1/" not in done.stdout
    assert games_stored(short_tmp / "pre.sqlite") == 0


def test_auto_without_bubblewrap_refuses_a_league_with_one_line_naming_the_fix(short_tmp: Path) -> None:
    league = config(short_tmp, {"random": SAMPLES / "random_bot.py", "heuristic": SAMPLES / "heuristic_bot.py"})
    no_bwrap = short_tmp / "bin"  # a PATH without bwrap on it
    no_bwrap.mkdir()
    env = dict(os.environ, PATH=str(no_bwrap), COLUMNS="300", NO_COLOR="1")
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "referee", "run", str(league), "--no-live"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "bubblewrap is not installed" in line and "apt-get install bubblewrap" in line
    assert f'set [sandbox] mode = "rlimits" in {league}' in line
    assert games_stored(short_tmp / "pre.sqlite") == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="the rlimits mode refuses to run a bot as root only under a root referee")
def test_a_bot_the_rlimits_mode_could_only_run_as_root_stops_the_league_with_the_fix(short_tmp: Path, tmp_path: Path) -> None:
    """Its folder is in a 0700 folder (pytest's tmp_path): a slot uid cannot reach it, and
    running it as root is never an option. The host's trouble, not the bot's: no fault, no
    standings, exit 2 and one line."""
    hidden = tmp_path / "bots"
    hidden.mkdir()
    shutil.copyfile(SAMPLES / "random_bot.py", hidden / "random_bot.py")
    league = config(short_tmp, {"random": hidden / "random_bot.py", "heuristic": SAMPLES / "heuristic_bot.py"}, mode="rlimits")
    done = run_referee("run", str(league), "--no-live")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: bot 'random': the rlimits mode would have to run it as root:"), line
    assert 'use [sandbox] mode = "bwrap"' in line
    assert "Standings" not in done.stdout and "[1/" not in done.stdout
    assert games_stored(short_tmp / "pre.sqlite") == 0
