"""Counts that resume exactly (docs/design.md §5, §7): on a loaded machine, a bot that
never starts is withdrawn after exactly ``max_restarts + 1`` startup faults, however
many games ask for it at once, in an uninterrupted league and in one killed (SIGKILL)
and resumed; the bots that do start get no fault in either."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO, processes_matching, run_referee, stored_games, write_config
from tests.e2e.test_league_e2e import stored_records

SAMPLES = REPO / "sample_bots" / "python"
DIES = REPO / "tests" / "faults" / "bots" / "dies_at_start_bot.py"
GAMES = 20  # C(5, 4) tables x 4 rotations; the dying bot sits at 4 of the 5 tables


def config(tmp: Path) -> Path:
    lines = [
        "[league]", 'name = "counts"', "seed = 5", "table_size = 4", "concurrency = 6",
        f'results = "{tmp / "counts.sqlite"}"',
        "[time]", "move_ms = 1000", "startup_ms = 20000",
        "[faults]", "max_restarts = 3",
    ]  # fmt: skip
    bots = {"dies": DIES, "random": SAMPLES / "random_bot.py", "heuristic": SAMPLES / "heuristic_bot.py",
            "random-2": SAMPLES / "random_bot.py", "heuristic-2": SAMPLES / "heuristic_bot.py"}  # fmt: skip
    for name, script in bots.items():
        slowly = ', "--after-s", "3"' if name == "dies" else ""  # it dies after 3 s: many games ask for it meanwhile
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{script}", "{tmp}"{slowly}]']
    return write_config(tmp / "counts.toml", "\n".join(lines) + "\n")


def counts(results: Path) -> dict[tuple[str, str], int]:
    records = stored_records(results)
    assert len(records) == GAMES
    return dict(collections.Counter((f["bot"], f["kind"]) for r in records for f in r["faults"]))  # type: ignore[union-attr]


def test_withdrawals_and_restarts_after_a_kill_and_resume_equal_an_uninterrupted_run(short_tmp: Path, cpu_hog: int) -> None:
    straight = short_tmp / "straight"
    straight.mkdir()
    done = run_referee("run", str(config(straight)), "--no-live", timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert counts(straight / "counts.sqlite") == {("dies", "startup"): 4}

    resumed = short_tmp / "resumed"
    resumed.mkdir()
    night = config(resumed)
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    first = subprocess.Popen([sys.executable, "-m", "referee", "run", str(night), "--no-live"], cwd=REPO, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    give_up = time.monotonic() + 600
    while stored_games(resumed / "counts.sqlite") < 3 and first.poll() is None and time.monotonic() < give_up:
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert 0 < stored_games(resumed / "counts.sqlite") < GAMES
    deadline = time.monotonic() + 30
    while processes_matching(str(resumed)) and time.monotonic() < deadline:  # its bots die with it
        time.sleep(0.1)
    done = run_referee("run", str(night), "--no-live", "--resume", timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert counts(resumed / "counts.sqlite") == {("dies", "startup"): 4}
