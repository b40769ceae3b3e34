"""Helpers of the league-level sandbox tests (sandbox.md "Misbehaving bots", rows 1-16).

Each test plays a tiny league under bubblewrap: the misbehaving bot ``bad`` and the sample
random bot, tables of 2, one deal (2 games), small limits. The bots are copies in a fresh
directory, so that directory's path marks every process of this test's bots."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import trio
from rich.console import Console

from referee.cli.setup import league_spec, open_results
from referee.config import load_config
from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.league.run import run_league
from referee.results.store import ResultsStore
from referee.sandbox.bwrap import SLOT_UIDS
from referee.schedule.make import make_fixtures
from tests.conftest import REPO, processes_matching, run_referee, write_config
from tests.sandbox.helpers import wait_for

BOTS = Path(__file__).parent / "bots"
RANDOM = REPO / "sample_bots" / "python" / "random_bot.py"
E2E_BOTS = REPO / "tests" / "e2e" / "bots"
FAULT_BOTS = REPO / "tests" / "faults" / "bots"
BAD, OTHER = "bad", "random"
LIMITS = "memory_mb = 256\nfile_size_mb = 8\nopen_files = 64\noutput_kb = 16\npids = 32"
GAMES = 2  # one table of 2, one deal, two rotations
ROTATIONS = 2  # a bot plays each rotation of a deal on a process of its own (docs/design.md §6)


class Staged:
    """A fresh world-readable directory holding copies of the bots of one test."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self(BOTS / "onthird.py")
        self.random = self(RANDOM)

    def __call__(self, script: str | Path) -> Path:
        source = Path(script) if "/" in str(script) else BOTS / str(script)
        target = self.dir / source.name
        shutil.copyfile(source, target)
        target.chmod(0o644)
        return target


@dataclass(frozen=True)
class League:
    """A league config in ``tmp`` and where its results and bot logs go."""

    config: Path
    results: Path

    @property
    def run_dir(self) -> Path:
        return self.results.with_suffix("")

    def logs(self, bot: str = BAD) -> list[Path]:
        """The bot's logs, one per process started, in start order."""
        found = self.run_dir.glob(f"{bot}-*.log")
        return sorted(found, key=lambda path: int(path.stem.rsplit("-", 1)[1]))

    def log_text(self, bot: str = BAD) -> str:
        return "".join(path.read_bytes().decode(errors="replace") for path in self.logs(bot))

    def records(self) -> list[GameRecord]:
        with ResultsStore.open_existing(self.results) as store:
            return list(store.records())


def write_league(
    tmp: Path,
    bad: Sequence[str | Path],
    staged: Staged,
    *,
    move_ms: int = 2000,
    startup_ms: int = 30_000,
    mode: str = "bwrap",
    python: str = "python",
    deals: int = 1,
) -> League:
    """A league of ``bad`` (a command: ``python`` and a staged script, then its arguments)
    against the random bot, sandboxed (``mode``) with small limits, both run by ``python``
    (in the rlimits mode the ``rlimits_python`` fixture), generous times where
    time is not what a test is about (other referees may load the machine), the ``league`` fault
    preset (3 faults in a game forfeit it), ``grace_ms`` 100, ``deals`` deals at a table of 2
    (two rotations each)."""
    results = tmp / "league.sqlite"
    lines = [
        "[league]",
        'name = "sandboxed"',
        "seed = 5",
        "table_size = 2",
        f"deals = {deals}",
        "concurrency = 1",
        f'results = "{results}"',
        "[time]",
        f"move_ms = {move_ms}",
        "grace_ms = 100",
        f"startup_ms = {startup_ms}",
        "[faults]",
        'preset = "league"',
        "[sandbox]",
        f'mode = "{mode}"',
        LIMITS,
        "[[bots]]",
        f'name = "{BAD}"',
        f"command = {json.dumps([python, *map(str, bad)])}",
        "[[bots]]",
        f'name = "{OTHER}"',
        f"command = {json.dumps([python, str(staged.random)])}",
    ]
    return League(write_config(tmp / "league.toml", "\n".join(lines) + "\n"), results)


class _Quiet:
    def game_started(self, fixture: object) -> None:
        pass

    def game_finished(self, record: object) -> None:
        pass


def run_in_process(league: League) -> tuple[list[GameRecord], str]:
    """Play the league in this process (as ``referee run`` does); -> (records, what the
    referee printed before the league)."""
    config = load_config(league.config)
    screen = io.StringIO()
    spec = league_spec(config, Console(file=screen, width=200))
    fixtures = make_fixtures([bot.name for bot in config.bots], config.league.table_size, config.league.deals, config.league.seed)
    store = open_results(config, None, resume=False)
    try:
        trio.run(run_league, spec, fixtures, store, _Quiet())
    finally:
        store.close()
    return league.records(), screen.getvalue()


def run_cli(league: League) -> subprocess.CompletedProcess[str]:
    """``referee run CONFIG --no-live`` as a real process; asserts it exits 0."""
    done = run_referee("run", str(league.config), "--no-live")
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def mine(record: GameRecord, bot: str = BAD) -> list[tuple[int, ActionRecord]]:
    """(decision number, action record) of every decision of ``bot``'s seat."""
    seat = record.seats.index(bot)
    return [(index, action) for index, action in enumerate(record.actions) if action.seat == seat]


def faults_of(record: GameRecord, bot: str = BAD) -> list[FaultRecord]:
    """The faults of ``bot`` in one game, in the order they were recorded."""
    return [fault for fault in record.faults if fault.bot == bot]


def assert_league_intact(records: Sequence[GameRecord], games: int = GAMES) -> None:
    """Every fixture (``games``) has a stored record with placements, and the other bot's
    decisions were all its own, answered, un-faulted."""
    assert sorted(record.fixture for record in records) == list(range(games)), "every game of the league is stored"
    for record in records:
        assert sorted(record.placements)[0] == 1 and len(record.placements) == 2, record.placements
        assert not faults_of(record, OTHER), record.faults
        theirs = [action for _, action in mine(record, OTHER)]
        assert theirs and all(action.fault is None and action.ms is not None for action in theirs)


def assert_sandboxed(league: League, bot: str = BAD, mode: str = "bwrap", root_referee: bool | None = None) -> None:
    """Every process of ``bot`` ran in ``mode`` (as a slot uid of its own under a root
    referee, never root), as its log's first line says. ``root_referee``: whether the
    referee ran as root (default: whether this process does)."""
    logs = league.logs(bot)
    assert logs, f"no log of {bot} in {league.run_dir}"
    for path in logs:
        first = path.read_text(errors="replace").splitlines()[0]
        match = re.search(r"\(mode (\w+), uid (\d+),", first)
        assert match and match.group(1) == mode, first
        if (os.geteuid() == 0) if root_referee is None else root_referee:
            assert int(match.group(2)) in SLOT_UIDS, first
        else:
            assert int(match.group(2)) != 0, first


def assert_no_process_left(marker: Path, timeout_s: float = 0.0) -> None:
    """No live process has ``marker`` (the staged bots' directory) in its command line;
    ``timeout_s``: wait up to that long for them to go (after a SIGKILLed referee)."""
    if timeout_s:
        wait_for(lambda: not processes_matching(str(marker)), timeout_s)
    assert processes_matching(str(marker)) == []
