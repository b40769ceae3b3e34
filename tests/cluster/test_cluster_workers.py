"""One bad machine cannot spoil a cluster league (docs/cluster.md): a worker proves it can run
the league before it takes a game, restarts and withdrawals are the league's, and a worker
lost while the league is sent out costs nothing. Each league is compared game for game
with the same league played on one machine."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

from referee.cluster.runner import ClusterRunner
from referee.game.faults import FaultPolicy
from referee.game.records import GameRecord
from referee.league.pool import BotEntry
from referee.sandbox import SandboxSettings
from referee.schedule.make import make_fixtures
from tests.cluster.helpers import BOTS, SAMPLES, Worker, fixtures, league_spec, play, restart_counts, without_timings
from tests.faults.helpers import BOTS as FAULT_BOTS


def one_worker_cluster() -> LocalCluster:
    return LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40)


def comparable(records: list[GameRecord]) -> list[dict[str, Any]]:
    """Records without measured times, and faults by what they were (their text names logs
    and processes, which differ from machine to machine)."""
    out = []
    for record in records:
        data = without_timings(record)
        data["faults"] = [(f["seat"], f["bot"], f["kind"], f["decision"]) for f in data["faults"]]
        out.append(data)
    return out


def bot_logs(tmpdir: Path) -> list[Path]:
    """Bot logs a worker with TMPDIR=tmpdir wrote for games (docs/cluster.md)."""
    return list(tmpdir.glob("kwhist-worker-*/runs/*/*/*.log"))


@pytest.fixture
def cluster() -> Iterator[tuple[LocalCluster, Client]]:
    with one_worker_cluster() as running, Client(running) as client:
        yield running, client


def test_a_worker_without_a_usable_sandbox_gets_no_game_and_is_named(short_tmp: Path, cluster: tuple[LocalCluster, Client]) -> None:
    """The lab PC without bubblewrap (and a root whose Python other users cannot reach):
    once it fell back to rlimits and turned every game it took into startup faults."""
    running, client = cluster
    games = fixtures(deals=1)
    local = play(league_spec(short_tmp / "local"), games, short_tmp / "local.sqlite")
    bare = short_tmp / "bare"
    bare.mkdir()
    lines: list[str] = []
    with Worker(running.scheduler_address, short_tmp, "bare", env={"PATH": str(bare), "TMPDIR": str(bare)}) as worker:
        address = worker.joined(client)
        remote = play(
            league_spec(short_tmp / "remote"),
            games,
            short_tmp / "remote.sqlite",
            ClusterRunner(client, sandbox=SandboxSettings(), say=lines.append),
        )
    assert comparable(remote) == comparable(local)
    assert not any(record.faults for record in remote)
    named = [line for line in lines if address in line]
    assert len(named) == 1 and "bubblewrap is not installed" in named[0] and "no games sent there" in named[0], lines
    assert bot_logs(bare) == []  # it started no bot for a game
    assert any("sandbox bwrap" in line for line in lines), lines  # the good worker's mode as it joined


@pytest.mark.skipif(os.geteuid() != 0, reason="a worker with its own view of a file needs a mount namespace (root)")
def test_a_worker_whose_shared_bot_file_differs_gets_none_of_its_games(short_tmp: Path, cluster: tuple[LocalCluster, Client]) -> None:
    """``bots = "shared"``: one worker's copy of one file differs. Once every seat of that
    bot on that worker became a startup fault, in every game it took."""
    running, client = cluster
    shared = short_tmp / "bots"
    for script in set(BOTS.values()):  # a folder per sample bot, on a path "every worker shares"
        (shared / script[:-3]).mkdir(parents=True)
        (shared / script[:-3] / script).write_bytes((SAMPLES / script).read_bytes())
    for folder in (shared, *shared.iterdir()):
        folder.chmod(0o755)
    spec = league_spec(short_tmp / "local")
    spec = replace(spec, bots=tuple(
        replace(bot, command=("python", str(shared / BOTS[bot.name][:-3] / BOTS[bot.name])), directory=shared / BOTS[bot.name][:-3])
        for bot in spec.bots
    ))  # fmt: skip
    games = fixtures(deals=1)
    local = play(spec, games, short_tmp / "local.sqlite")
    changed = short_tmp / "changed.py"
    changed.write_text((SAMPLES / "random_bot.py").read_text() + "# this worker's copy differs\n")
    target = shared / "random_bot" / "random_bot.py"
    unshare = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", f'mount --bind "{changed}" "{target}" && exec "$0" "$@"']
    lines: list[str] = []
    with Worker(running.scheduler_address, short_tmp, "odd", prefix=unshare) as worker:
        address = worker.joined(client)
        remote = play(
            replace(spec, run_dir=short_tmp / "remote"),
            games,
            short_tmp / "remote.sqlite",
            ClusterRunner(client, sandbox=SandboxSettings(), shared=True, say=lines.append),
        )
    assert comparable(remote) == comparable(local)
    assert not any(record.faults for record in remote)
    refused = [line for line in lines if address in line and "cannot run there" in line]
    assert len(refused) == 2, lines  # random and random-2 share the folder
    assert all("differs from the coordinator's" in line and "its games go to other workers" in line for line in refused)


def crash_league(run_dir: Path) -> tuple[Any, list[Any]]:
    """Five bots at tables of four, one of which crashes in every game it plays; withdrawn
    after its third crash (max_restarts = 2)."""
    spec = league_spec(run_dir, name="crashes")
    crash = BotEntry("crash", ("python", str(FAULT_BOTS / "crash_bot.py")), directory=FAULT_BOTS)
    spec = replace(spec, bots=(*spec.bots, crash), faults=FaultPolicy(max_restarts=2), concurrency=1)
    return spec, make_fixtures([bot.name for bot in spec.bots], 4, 1, 5)


def test_a_crashing_bot_on_two_workers_is_restarted_and_withdrawn_as_on_one_machine(short_tmp: Path) -> None:
    """Once each worker counted its own restarts: W x (max_restarts + 1) crashes, and the
    standings marked withdrawn a bot still playing elsewhere."""
    spec, games = crash_league(short_tmp / "local")
    local = play(spec, games, short_tmp / "local.sqlite")
    assert restart_counts(short_tmp / "local.sqlite") == {"crash": 3}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40) as running:
        with Client(running) as client:
            remote = play(replace(spec, run_dir=short_tmp / "remote"), games, short_tmp / "remote.sqlite", ClusterRunner(client, sandbox=SandboxSettings()))
            assert comparable(remote) == comparable(local)
            assert restart_counts(short_tmp / "remote.sqlite") == {"crash": 3}
            # the same league stopped after its first games, then resumed on the cluster
            first = [game for game in games if "crash" in game.seats][:2]
            part = short_tmp / "resumed.sqlite"
            play(replace(spec, run_dir=short_tmp / "part"), first, part, ClusterRunner(client, sandbox=SandboxSettings()))
            assert restart_counts(part) == {"crash": 2}
            resumed = play(
                replace(spec, run_dir=short_tmp / "part"), games, part, ClusterRunner(client, sandbox=SandboxSettings()), resume=True
            )
    assert restart_counts(part) == {"crash": 3}
    assert comparable(resumed) == comparable(local)


def test_a_worker_killed_while_the_league_is_sent_out_costs_nothing(short_tmp: Path) -> None:
    """Once a worker SIGKILLed while the league's job was broadcast ended the coordinator
    with a raw CommClosedError traceback."""
    games = fixtures(deals=2)
    local = play(league_spec(short_tmp / "local"), games, short_tmp / "local.sqlite")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40) as running:
        with Client(running) as client:
            pids = client.run(os.getpid)
            real_scatter = client.scatter
            killed: list[int] = []

            def scatter(*args: Any, **kwargs: Any) -> Any:
                if not killed:  # a worker dies as the league is sent to the workers
                    killed.append(pids[sorted(pids)[0]])
                    os.kill(killed[0], signal.SIGKILL)
                return real_scatter(*args, **kwargs)

            client.scatter = scatter  # type: ignore[method-assign]
            remote = play(league_spec(short_tmp / "remote"), games, short_tmp / "remote.sqlite", ClusterRunner(client, sandbox=SandboxSettings()))
    assert killed
    ids = [record.game_id for record in remote]
    assert len(ids) == len(set(ids)) == len(games)
    assert comparable(remote) == comparable(local)
