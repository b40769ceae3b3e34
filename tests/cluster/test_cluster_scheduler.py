"""The scheduler's loss (docs/cluster.md): the coordinator stops with one line and exit 2,
keeping every game it stored; ``--resume`` against a restarted scheduler waits for workers,
saying so, then finishes the league as one machine would have played it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from referee.results.store import ResultsStore
from tests.cluster.helpers import BOTS, Scheduler, Worker, free_port
from tests.cluster.test_cluster_workers import comparable
from tests.conftest import REPO, run_referee, write_config


def config_file(tmp: Path, results: Path) -> Path:
    lines = [
        "[league]", 'name = "lost"', "seed = 9", "table_size = 4", "deals = 6", f'results = "{results}"',
        "[time]", "move_ms = 20000", "grace_ms = 5000", "startup_ms = 120000",
    ]  # fmt: skip
    for name, script in BOTS.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "sample_bots/python/{script}"]']
    return write_config(tmp / "lost.toml", "\n".join(lines) + "\n")


def stored(results: Path) -> int:
    import sqlite3

    if not results.exists():
        return 0
    try:
        with sqlite3.connect(results, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


class Referee:
    """``referee run ...`` as a process whose output is read line by line as it comes."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "run", *args, "--no-live"],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def said(self, text: str, timeout_s: float = 180) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if any(text in line for line in self.lines):
                return True
            if self.process.poll() is not None:
                self._reader.join(5)
                return any(text in line for line in self.lines)
            time.sleep(0.05)
        return False

    def wait(self, timeout_s: float = 300) -> int:
        code = self.process.wait(timeout_s)
        self._reader.join(5)
        return code

    @property
    def output(self) -> str:
        return "\n".join(self.lines)


def test_a_lost_scheduler_stops_with_one_line_and_resume_waits_for_the_workers(short_tmp: Path) -> None:
    results = short_tmp / "lost.sqlite"
    config = config_file(short_tmp, results)
    local = run_referee("run", str(config), "--no-live", "--results", str(short_tmp / "local.sqlite"), timeout=600)
    assert local.returncode == 0, local.stdout + local.stderr
    port = free_port()
    with Scheduler(port, short_tmp) as scheduler:
        address = scheduler.listening()
        with Worker(address, short_tmp, "w1"), Worker(address, short_tmp, "w2"):
            first = Referee(str(config), "--cluster", address)
            deadline = time.monotonic() + 300
            while stored(results) == 0 and first.process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            scheduler.kill()  # mid-league: its workers stop with it
            assert first.wait() == 2, first.output
    assert "lost the Dask scheduler at " + address in first.output and "--resume" in first.output, first.output
    assert "Traceback" not in first.output, first.output
    kept = stored(results)
    assert 1 <= kept < 24, first.output
    with Scheduler(port, short_tmp) as scheduler:
        scheduler.listening()
        second = Referee(str(config), "--resume", "--cluster", address)
        assert second.said("for workers to join the scheduler"), second.output  # none yet: it waits, saying so
        assert second.process.poll() is None, second.output
        with Worker(address, short_tmp, "w3"), Worker(address, short_tmp, "w4"):
            assert second.wait() == 0, second.output
    assert "Traceback" not in second.output, second.output
    assert f"{kept} already played" in second.output, second.output
    with ResultsStore.open_existing(results) as store, ResultsStore.open_existing(short_tmp / "local.sqlite") as alone:
        resumed, reference = list(store.records()), list(alone.records())
    assert len({record.game_id for record in resumed}) == len(resumed) == 24
    assert comparable(resumed) == comparable(reference)
