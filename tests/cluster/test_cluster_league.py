"""Leagues on a Dask LocalCluster of two worker processes: the same records as on one
machine, a worker killed mid-league, a bot whose folder does not match its hash, and the
command line with a coordinator killed and resumed (docs/cluster.md)."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from referee.cluster.bundle import BotBundle, pack
from referee.cluster.runner import ClusterError, ClusterRunner
from referee.game.records import GameRecord
from referee.sandbox import SandboxSettings
from referee.schedule.make import make_fixtures
from tests.cluster.helpers import BOTS, SAMPLES, Recorder, fixtures, league_spec, play, without_timings
from tests.conftest import REPO, run_referee, write_config


def local_cluster() -> LocalCluster:
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with local_cluster() as running:
        yield running


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster) as connected:
        yield connected


def assert_each_game_once(records: list[GameRecord], expected: int) -> None:
    ids = [record.game_id for record in records]
    assert len(ids) == len(set(ids)) == expected


def test_a_league_on_the_cluster_equals_the_local_run_game_for_game(short_tmp: Path, client: Client) -> None:
    games = fixtures(deals=1)
    local = play(league_spec(short_tmp / "local"), games, short_tmp / "local.sqlite")
    reporter = Recorder()
    remote = play(
        league_spec(short_tmp / "remote"),
        games,
        short_tmp / "remote.sqlite",
        ClusterRunner(client, sandbox=SandboxSettings()),
        reporter,
    )
    assert_each_game_once(remote, len(games))
    assert [without_timings(r) for r in remote] == [without_timings(r) for r in local]
    assert all(not record.faults for record in remote)
    assert sorted(reporter.started) == sorted(game.game_id for game in games)  # each worker said when it began
    placements = {r.game_id: r.placements for r in remote}
    assert placements == {r.game_id: r.placements for r in local}


def test_a_bot_whose_folder_matches_its_hash_on_no_worker_stops_the_league_before_a_game(
    short_tmp: Path, client: Client
) -> None:
    """A changed archive is the host's trouble, never the bot's: no startup fault is stored,
    and with no worker left that can run the bot the league stops with one line."""
    folder = short_tmp / "random"  # random's own folder: no worker has a checked copy of it yet
    folder.mkdir()
    shutil.copy(SAMPLES / "random_bot.py", folder)
    (folder / "unique.txt").write_text(str(short_tmp))
    spec = league_spec(short_tmp / "run", name="tampered")
    random = replace(spec.bots[1], command=("python", str(folder / "random_bot.py")), directory=folder)
    assert random.name == "random"
    spec = replace(spec, bots=(spec.bots[0], random, *spec.bots[2:]))

    class Tampering(ClusterRunner):
        """Sends random's folder with one file changed after hashing it."""

        def bundles(self, spec):  # type: ignore[no-untyped-def]
            found = super().bundles(spec)
            (folder / "random_bot.py").write_text("# not the bot that was hashed\n")
            return [replace(b, archive=pack(b.source)) if b.name == "random" else b for b in found]

    lines: list[str] = []
    with pytest.raises(ClusterError, match=r"^no worker can run bot 'random': worker tcp://.*expected") as raised:
        play(spec, fixtures(deals=1)[:2], short_tmp / "t.sqlite", Tampering(client, sandbox=SandboxSettings(), say=lines.append))
    assert "\n" not in str(raised.value)
    assert stored_ids(short_tmp / "t.sqlite") == []
    assert sum("bot 'random' cannot run there" in line for line in lines) == 2, lines


def test_a_game_that_fails_on_a_worker_stops_the_league_with_one_line_naming_it(short_tmp: Path, client: Client) -> None:
    spec = league_spec(short_tmp / "run", name="broken")
    games = make_fixtures(["nobody", *BOTS][:4], 4, 1, 3)[:1]  # a bot the league does not know
    with pytest.raises(ClusterError, match=rf"game {games[0].game_id} could not be played on the cluster: KeyError: 'nobody'"):
        play(spec, games, short_tmp / "b.sqlite", ClusterRunner(client, sandbox=SandboxSettings()))


def test_a_worker_killed_mid_league_loses_and_repeats_no_game(short_tmp: Path) -> None:
    games = fixtures(deals=1)
    local = play(league_spec(short_tmp / "local"), games, short_tmp / "local.sqlite")
    with local_cluster() as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)
        killed: list[str] = []

        def kill_a_worker_in_a_game(record: GameRecord) -> None:
            if killed:
                return
            for address, keys in client.processing().items():
                if keys:  # its game is lost with it: Dask runs it again on the other worker
                    os.kill(pids[address], signal.SIGKILL)
                    killed.extend(str(key) for key in keys)
                    return

        remote = play(
            league_spec(short_tmp / "remote"),
            games,
            short_tmp / "remote.sqlite",
            ClusterRunner(client, sandbox=SandboxSettings()),
            Recorder(kill_a_worker_in_a_game),
        )
    assert killed, "no worker was playing a game when the first game finished"
    assert_each_game_once(remote, len(games))
    assert [without_timings(r) for r in remote] == [without_timings(r) for r in local]


def stored_ids(results: Path) -> list[str]:
    if not results.exists():
        return []
    try:
        with sqlite3.connect(results, timeout=5) as db:
            return [row[0] for row in db.execute("SELECT game_id FROM games")]
    except sqlite3.Error:
        return []


def test_run_cluster_from_the_command_line_resumes_after_the_coordinator_dies(short_tmp: Path, cluster: LocalCluster) -> None:
    results = short_tmp / "cli.sqlite"
    lines = [
        "[league]", 'name = "cli"', "seed = 5", "table_size = 4", "deals = 2", f'results = "{results}"',
        "[time]", "move_ms = 20000", "grace_ms = 5000", "startup_ms = 120000",
        "[cluster]", f'scheduler = "{cluster.scheduler_address}"',
    ]  # fmt: skip
    for name, script in BOTS.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "sample_bots/python/{script}"]']
    config = write_config(short_tmp / "cli.toml", "\n".join(lines) + "\n")
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    first = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(config), "--no-live"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 240
    while not stored_ids(results) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    first.kill()  # the coordinator dies with games in flight on the workers
    output = first.communicate()[0]
    assert "on the cluster at tcp://" in output, output
    kept = stored_ids(results)
    assert 1 <= len(kept), output
    done = run_referee("run", str(config), "--resume", "--no-live", "--cluster", cluster.scheduler_address)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(kept)} already played" in done.stdout or len(kept) == 8
    ids = stored_ids(results)
    assert len(ids) == len(set(ids)) == 8
    assert set(kept) <= set(ids)
    assert "Standings" in done.stdout
