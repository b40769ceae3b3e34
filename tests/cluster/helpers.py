"""A small league of the sample bots, played here or on a LocalCluster, and its records
compared game for game apart from timings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import trio

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
    spec: LeagueSpec, games: Sequence[Fixture], results: Path, runner: FixtureRunner | None = None, reporter: Recorder | None = None
) -> list[GameRecord]:
    """Run the league into a new results file; every stored record, by fixture."""
    store = ResultsStore.open(results, league=spec.name, fingerprint="test", config_text="", resume=False)
    try:
        trio.run(run_league, spec, games, store, reporter or Recorder(), runner)
        return list(store.records())
    finally:
        store.close()
        if runner is not None:
            runner.close()  # type: ignore[attr-defined]


def without_timings(record: GameRecord) -> dict[str, Any]:
    """The record as JSON data with every measured time left out."""
    data = record.to_json()
    data["actions"] = [{k: v for k, v in action.items() if k != "ms"} for action in data["actions"]]
    data["faults"] = [{k: v for k, v in fault.items() if k != "ms"} for fault in data["faults"]]
    return data
