"""A league run by a normal user (the usual laptop), with bubblewrap and in the rlimits mode:
a thread bomb gets its own fault, and the other bots of its league none (docs/sandbox.md
"Limits": a normal user's RLIMIT_NPROC is the uid's, so each bot gets it in a user namespace
of its own), and the sample bots of the demo league have no fault at all. Run as root, the
referee runs as a throwaway uid (tests/normal_user.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.game.records import GameRecord
from referee.results.store import ResultsStore
from tests.conftest import REPO
from tests.normal_user import NormalUser
from tests.sandbox_league.helpers import Staged, assert_no_process_left

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]

SAMPLES = REPO / "sample_bots" / "python"


@pytest.fixture
def user(as_normal_user: NormalUser) -> NormalUser:
    return as_normal_user


def league_config(
    results: Path, mode: str, bots: list[tuple[str, Path]], *, deals: int, concurrency: int, pids: int
) -> str:
    """A league of ``bots`` (name, script run by the referee's ``python``) at one table."""
    lines = [
        "[league]", 'name = "normal-user"', "seed = 3", f"table_size = {len(bots)}", f"deals = {deals}",
        f"concurrency = {concurrency}", f'results = "{results}"',
        "[time]", "move_ms = 2000", "grace_ms = 100", "startup_ms = 30000",
        "[sandbox]", f'mode = "{mode}"', f"pids = {pids}",
    ]  # fmt: skip
    for name, script in bots:
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(['python', str(script)])}"]
    return "\n".join(lines) + "\n"


def play(user: NormalUser, label: str, config_text: str) -> tuple[list[GameRecord], Path]:
    """Run the league as ``user`` (exit 0 asserted), its files named ``label``; -> its records
    and its run folder."""
    results = user.home / f"{label}.sqlite"
    config = user.home / f"{label}.toml"
    config.write_text(config_text.replace("RESULTS", str(results)))
    user.give(config)
    done = user.run("run", str(config), "--no-live", cwd=user.home)
    assert done.returncode == 0, done.stdout + done.stderr
    with ResultsStore.open_existing(results) as store:
        return list(store.records()), results.with_suffix("")


@pytest.mark.parametrize("mode", ["bwrap", "rlimits"])
def test_a_thread_bomb_faults_alone_when_a_normal_user_runs_the_league(
    mode: str, staged: Staged, user: NormalUser
) -> None:
    heuristic = staged(SAMPLES / "heuristic_bot.py")
    bots = [("random", staged.random), ("heuristic", heuristic), ("bomb", staged("thread_bomb_bot.py")), ("random-2", staged.random)]
    records, run_dir = play(user, f"bomb-{mode}", league_config(Path("RESULTS"), mode, bots, deals=1, concurrency=2, pids=32))
    assert len(records) == 4
    faults = [(fault.bot, fault.kind, fault.detail[:80]) for record in records for fault in record.faults]
    assert [fault for fault in faults if fault[0] != "bomb"] == [], faults
    assert ("bomb", "timeout") in [fault[:2] for fault in faults], faults
    logs = "".join(path.read_text(errors="replace") for path in run_dir.glob("bomb-*.log"))
    assert "THREADS " in logs
    assert_no_process_left(staged.dir)


@pytest.mark.parametrize("mode", ["bwrap", "rlimits"])
def test_the_demo_league_has_no_faults_when_a_normal_user_runs_it(mode: str, staged: Staged, user: NormalUser) -> None:
    heuristic = staged(SAMPLES / "heuristic_bot.py")
    bots = [("heuristic", heuristic), ("heuristic-2", heuristic), ("random", staged.random), ("random-2", staged.random)]
    records, _run_dir = play(user, f"demo-{mode}", league_config(Path("RESULTS"), mode, bots, deals=6, concurrency=4, pids=64))
    assert len(records) == 24
    assert [(fault.bot, fault.kind) for record in records for fault in record.faults] == []
    assert_no_process_left(staged.dir)


def test_check_bot_keeps_a_virtualenvs_python_when_a_normal_user_runs_it(staged: Staged, user: NormalUser) -> None:
    """``referee check-bot -- <venv>/bin/python bot.py``: that virtualenv, with its packages,
    not the interpreter its bin/python links to."""
    heuristic = staged(SAMPLES / "heuristic_bot.py")
    logs = user.home / "check-logs"
    logs.mkdir()
    user.give(logs)
    done = user.run("check-bot", "--logs", str(logs), "--games", "2", "--startup-ms", "30000", "--", user.python, str(heuristic), cwd=user.home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks passed" in done.stdout and "FAIL" not in done.stdout
