"""A cluster that waits out an outage (docs/cluster.md): both workers that can play are
killed mid-league and come back a few seconds later, while a worker that cannot run the
league (no bubblewrap) stays connected. The league waits, says so once, and ends with the
records of a local run; each worker is named once as it joins and once as it leaves; the
header counts only the threads that can play; no bot process of any worker's life is left."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from distributed import Client

from referee.cluster.runner import ClusterError, ClusterRunner
from referee.game.records import GameRecord
from referee.sandbox import SandboxSettings
from tests.cluster.helpers import Recorder, Scheduler, Worker, fixtures, free_port, league_spec, play, without_timings
from tests.conftest import processes_matching

pytestmark = pytest.mark.timeout(600)


def bare_env(folder: Path) -> dict[str, str]:
    """A worker where bubblewrap cannot be found."""
    folder.mkdir(parents=True, exist_ok=True)
    return {"PATH": str(folder), "TMPDIR": str(folder)}


def own_tmp(folder: Path) -> dict[str, str]:
    """A worker whose unpacked bots (and so every bot process's command line) are under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # the sandbox's uids read the bots unpacked there
    return {"TMPDIR": str(folder)}


def no_bot_left(folders: list[Path], timeout_s: float = 30) -> list[tuple[int, str]]:
    deadline = time.monotonic() + timeout_s
    while True:
        left = [found for folder in folders for found in processes_matching(str(folder) + "/kwhist-worker-")]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def test_both_capable_workers_killed_and_back_within_10_s_the_league_completes_as_a_local_run(short_tmp: Path) -> None:
    games = fixtures(deals=2)
    local = play(league_spec(short_tmp / "local"), games, short_tmp / "local.sqlite")
    lives = [short_tmp / name for name in ("good-1", "good-2", "good-1-again", "good-2-again")]
    workers: list[Worker] = []
    lines: list[str] = []
    with Scheduler(free_port(), short_tmp) as scheduler, Client(scheduler.listening(), set_as_default=False) as client:
        try:
            workers.append(Worker(scheduler.address, short_tmp, "bare", env=bare_env(short_tmp / "bare-tmp")))
            workers += [Worker(scheduler.address, short_tmp, life.name, env=own_tmp(life)) for life in lives[:2]]
            for worker in workers:
                worker.joined(client)
            runner = ClusterRunner(client, sandbox=SandboxSettings(), say=lines.append)
            assert runner.describe().endswith("(2 at once)"), "the bare worker's thread cannot play"
            gone: list[str] = []

            def back() -> None:
                workers.extend(Worker(scheduler.address, short_tmp, life.name, env=own_tmp(life)) for life in lives[2:])

            def outage(record: GameRecord) -> None:
                checked = [worker for worker in workers[1:3] if any(f"worker {worker.address}: sandbox bwrap" in line for line in lines)]
                if gone or len(checked) < 2:
                    return  # once both have played
                for worker in workers[1:3]:
                    worker.stop()
                    gone.append(worker.address)
                threading.Timer(5.0, back).start()  # back within 10 s, as a nanny brings them back

            remote = play(league_spec(short_tmp / "remote"), games, short_tmp / "remote.sqlite", runner, Recorder(outage))
            left = no_bot_left(lives)
        finally:
            for worker in workers:
                worker.stop()
    assert [without_timings(record) for record in remote] == [without_timings(record) for record in local]
    assert len(gone) == 2
    waiting = [line for line in lines if "waiting up to" in line]
    assert len(waiting) == 1, lines
    assert "no worker can run the league" in waiting[0] and "bubblewrap" in waiting[0]
    joined = [line for line in lines if ": sandbox bwrap," in line]
    assert len(joined) == 4 == len({line.split(" ")[1] for line in joined}), lines  # each of the 4 lives, once
    for address in gone:
        assert sum(f"worker {address} left" in line for line in lines) == 1, lines
    assert not any(f"worker {workers[0].address} left" in line for line in lines), lines
    assert sum("bubblewrap is not installed" in line and "no games sent there" in line for line in lines) == 1, lines
    assert left == [], "a bot process of a worker's life outlived the league"


def test_a_league_whose_workers_never_could_play_stops_at_once_with_one_line(short_tmp: Path) -> None:
    """Not an outage but a set-up to fix: the only worker never could run the league."""
    with Scheduler(free_port(), short_tmp) as scheduler, Client(scheduler.listening(), set_as_default=False) as client:
        with Worker(scheduler.address, short_tmp, "bare", env=bare_env(short_tmp / "bare-tmp")) as worker:
            worker.joined(client)
            runner = ClusterRunner(client, sandbox=SandboxSettings(), wait_s=3600)  # a wait would outlast the test's timeout
            assert runner.describe().endswith("(no worker can play yet)")
            with pytest.raises(ClusterError, match=r"^no worker can run the league: worker tcp://.*bubblewrap is not installed"):
                play(league_spec(short_tmp / "remote"), fixtures(deals=1), short_tmp / "remote.sqlite", runner)


def test_no_worker_back_in_the_time_allowed_stops_the_league_with_one_line(short_tmp: Path) -> None:
    with Scheduler(free_port(), short_tmp) as scheduler, Client(scheduler.listening(), set_as_default=False) as client:
        lines: list[str] = []
        runner = ClusterRunner(client, sandbox=SandboxSettings(), say=lines.append, wait_s=2)
        with pytest.raises(ClusterError, match=r"^no worker joined the scheduler at tcp://.*; none came in 2 s: .*--resume"):
            play(league_spec(short_tmp / "remote"), fixtures(deals=1), short_tmp / "remote.sqlite", runner)
        assert lines == [f"waiting up to 2 s for workers to join the scheduler at {scheduler.address}…"]
