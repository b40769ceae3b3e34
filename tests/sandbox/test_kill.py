"""Every process of a bot dies: on kill(), on kill_all(), and when the referee is SIGKILLed
(sandbox.md table rows 9 and 10)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from referee.sandbox import kill_all, live_processes
from referee.sandbox.bwrap import SLOT_UIDS
from referee.sandbox.cgroups import clean_stale_groups, remove_groups
from tests.sandbox.helpers import BOTS, Launcher, bot_pids, uids_of, wait_for, wait_log

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]


def test_a_daemonised_child_ignoring_sigterm_is_gone_after_kill(start: Launcher, limit_mode: str) -> None:
    process = start("daemon.py", mode=limit_mode)
    assert "READY" in wait_log(process, "READY")
    marker = process.marker  # type: ignore[attr-defined]
    assert wait_for(lambda: len(bot_pids(marker)) >= 2), bot_pids(marker)
    if limit_mode != "bwrap" and os.geteuid() == 0:  # the bot and its daemon: its slot uid, never root
        assert uids_of(bot_pids(marker)) == {process.uid} and process.uid in SLOT_UIDS
    private = process.home
    assert (private is None) == (limit_mode == "bwrap"), "under bwrap the home is a tmpfs in the sandbox"
    assert private is None or private.is_dir()
    process.kill()
    assert bot_pids(marker) == set()
    assert process.exit_detail() == "killed by the referee"
    assert private is None or not private.exists()  # the private directory is removed ...
    assert process.log_path.exists()  # ... the log is kept
    process.kill()  # idempotent


def test_kill_all_kills_every_live_process(start: Launcher, mode: str) -> None:
    first, second = start("sleeper.py", mode=mode), start("daemon.py", mode=mode)
    for process in (first, second):
        wait_log(process, "READY")
    assert {first, second} <= set(live_processes())
    kill_all()
    assert not {first, second} & set(live_processes())
    for process in (first, second):
        assert process.poll() is not None
        assert bot_pids(process.marker) == set()  # type: ignore[attr-defined]


@pytest.mark.parametrize("script", ["daemon.py", "fork_bomb.py"])
def test_bots_die_when_the_referee_is_sigkilled(bot_dir: Path, run_dir: Path, needs_bwrap: None, script: str) -> None:
    marker = uuid.uuid4().hex
    launcher = subprocess.Popen(
        [sys.executable, str(BOTS / "launcher.py"), "bwrap", str(bot_dir), str(run_dir), marker, script],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert launcher.stdout is not None
        line = launcher.stdout.readline().decode()
        assert line.startswith("LAUNCHED"), line
        assert wait_for(lambda: len(bot_pids(marker) - {launcher.pid}) >= 3), bot_pids(marker)
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(10)
        assert wait_for(lambda: not bot_pids(marker), 10), bot_pids(marker)
    finally:
        launcher.kill()
        launcher.wait(10)
        for pid in bot_pids(marker):
            os.kill(pid, signal.SIGKILL)
        clean_stale_groups()  # the dead referee's empty cgroups
        remove_groups()


@pytest.mark.parametrize("script", ["sleeper.py", "daemon.py"])
def test_every_process_of_an_rlimits_bot_dies_when_the_referee_is_sigkilled(
    bot_dir: Path, run_dir: Path, rlimits_python: str, script: str
) -> None:
    """Without bwrap the bot's own process dies with the referee (PR_SET_PDEATHSIG), and
    the keeper kills what it left: a daemonised grandchild ignoring SIGTERM is gone
    within 5 s (issue 38: once 4 such daemons ran on until the next run)."""
    marker = uuid.uuid4().hex
    launcher = subprocess.Popen(
        [sys.executable, str(BOTS / "launcher.py"), "rlimits", str(bot_dir), str(run_dir), marker, script, rlimits_python],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert launcher.stdout is not None
        assert launcher.stdout.readline().startswith(b"LAUNCHED")
        assert wait_for(lambda: "READY" in "".join(path.read_text() for path in run_dir.glob("orphan-*.log")))
        assert wait_for(lambda: len(bot_pids(marker) - {launcher.pid}) >= (2 if script == "daemon.py" else 1))
        if os.geteuid() == 0:  # a slot uid, never root
            uids = uids_of(bot_pids(marker) - {launcher.pid})
            assert len(uids) == 1 and uids <= set(SLOT_UIDS), uids
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(10)
        assert wait_for(lambda: not bot_pids(marker), 5), bot_pids(marker)
    finally:
        launcher.kill()
        launcher.wait(10)
        for pid in bot_pids(marker):
            os.kill(pid, signal.SIGKILL)
        clean_stale_groups()
        remove_groups()
