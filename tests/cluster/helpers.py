"""A small league of the sample bots, played here or on a LocalCluster, and its records
compared game for game apart from timings."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio
from distributed import Client

from referee.game.faults import FaultPolicy
from referee.game.records import GameRecord
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.league.pool import BotEntry
from referee.league.run import FixtureRunner, LeagueSpec, run_league
from referee.results.store import ResultsStore
from referee.sandbox import SandboxSettings
from referee.schedule.fixture import Fixture
from referee.schedule.make import make_fixtures
from tests.conftest import REPO

SAMPLES = REPO / "sample_bots" / "python"
BOTS = {"heuristic": "heuristic_bot.py", "random": "random_bot.py", "heuristic-2": "heuristic_bot.py", "random-2": "random_bot.py"}
# generous: the machine is shared, and a timeout would change the game (a fallback move)
TIME = TimeControl(move_ms=20_000, grace_ms=5000, bank_ms=0, startup_ms=120_000)


def league_spec(run_dir: Path, name: str = "cluster") -> LeagueSpec:
    bots = tuple(
        BotEntry(bot, ("python", str(SAMPLES / script)), directory=SAMPLES) for bot, script in BOTS.items()
    )
    return LeagueSpec(name, bots, Rules(), TIME, FaultPolicy(), SandboxSettings(), 2, run_dir)


def fixtures(deals: int) -> list[Fixture]:
    return make_fixtures(list(BOTS), 4, deals, 11)


class Recorder:
    """A Reporter that keeps what it is told, and may act on each finished game."""

    def __init__(self, on_finished: Callable[[GameRecord], None] | None = None) -> None:
        self.started: list[str] = []
        self.finished: list[str] = []
        self._on_finished = on_finished

    def game_started(self, fixture: Fixture) -> None:
        self.started.append(fixture.game_id)

    def game_finished(self, record: GameRecord) -> None:
        self.finished.append(record.game_id)
        if self._on_finished is not None:
            self._on_finished(record)


def play(
    spec: LeagueSpec,
    games: Sequence[Fixture],
    results: Path,
    runner: FixtureRunner | None = None,
    reporter: Recorder | None = None,
    *,
    resume: bool = False,
    close: bool = True,
) -> list[GameRecord]:
    """Run the league into a new results file (``resume``: continue the one there); every
    stored record, by fixture."""
    store = ResultsStore.open(results, league=spec.name, fingerprint="test", config_text="", resume=resume)
    try:
        trio.run(run_league, spec, games, store, reporter or Recorder(), runner)
        return list(store.records())
    finally:
        store.close()
        if runner is not None and close:
            runner.close()  # type: ignore[attr-defined]


def restart_counts(results: Path) -> dict[str, int]:
    with ResultsStore.open_existing(results) as store:
        return store.restart_counts()


class Worker:
    """A ``dask worker`` process of its own (no nanny: killing it kills the worker), started
    with ``env`` changes and under ``prefix`` (e.g. ``unshare``); ``address`` once joined."""

    def __init__(
        self,
        scheduler: str,
        tmp: Path,
        name: str,
        *,
        env: dict[str, str] | None = None,
        prefix: Sequence[str] = (),
        extra: Sequence[str] = (),
    ) -> None:
        (tmp / name).mkdir(parents=True, exist_ok=True)
        self.log = tmp / f"{name}.log"
        command = [
            *prefix, sys.executable, "-m", "distributed.cli.dask_worker", scheduler, "--nthreads", "1", "--no-nanny",
            "--no-dashboard", "--local-directory", str(tmp / name), "--name", name, *extra,
        ]  # fmt: skip
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, env=dict(os.environ, **(env or {})), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.name = name
        self.address = ""

    def joined(self, client: Client, timeout_s: float = 120) -> str:
        """Wait until the scheduler lists this worker; its address."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for address, info in client.scheduler_info(n_workers=-1)["workers"].items():
                if info.get("name") == self.name:
                    self.address = address
                    return address
            assert self.process.poll() is None, self.log.read_text()
            time.sleep(0.2)
        raise AssertionError(f"worker {self.name} did not join: {self.log.read_text()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def without_timings(record: GameRecord) -> dict[str, Any]:
    """The record as JSON data with every measured time left out."""
    data = record.to_json()
    data["actions"] = [{k: v for k, v in action.items() if k != "ms"} for action in data["actions"]]
    data["faults"] = [{k: v for k, v in fault.items() if k != "ms"} for fault in data["faults"]]
    return data


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Scheduler:
    """A ``dask scheduler`` process of its own on 127.0.0.1:``port`` (``extra``: more
    options, e.g. TLS); ``address`` once it listens."""

    def __init__(self, port: int, tmp: Path, *, protocol: str = "tcp", extra: Sequence[str] = ()) -> None:
        self.log = tmp / f"scheduler-{port}-{time.monotonic_ns()}.log"
        command = [
            sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
            "--no-dashboard", "--protocol", protocol, *extra,
        ]  # fmt: skip
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.address = f"{protocol}://127.0.0.1:{port}"
        self.port = port

    def listening(self, timeout_s: float = 120) -> str:
        import socket

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self.address
            time.sleep(0.1)
        raise AssertionError(f"the scheduler did not listen: {self.log.read_text()}")

    def kill(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def __enter__(self) -> Scheduler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def joined(client: Client, count: int, timeout_s: float = 120) -> None:
    """Wait until the scheduler of ``client`` lists ``count`` workers."""
    deadline = time.monotonic() + timeout_s
    while len(client.scheduler_info(n_workers=-1)["workers"]) < count:
        assert time.monotonic() < deadline, f"fewer than {count} workers joined"
        time.sleep(0.2)
