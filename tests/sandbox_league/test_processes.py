"""Rows 9 and 10 of sandbox.md "Misbehaving bots", with the referee as a real process: a
bot that leaves a daemonised child ignoring SIGTERM, and a referee SIGKILLed mid-game.
Either way no process of any bot remains."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.sandbox.cgroups import clean_stale_groups, remove_groups
from tests.conftest import REPO, processes_matching
from tests.sandbox.helpers import wait_for
from tests.sandbox_league.helpers import (
    ROTATIONS,
    Staged,
    assert_league_intact,
    assert_no_process_left,
    assert_sandboxed,
    run_cli,
    write_league,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(120)]


def test_row9_a_daemonised_child_ignoring_sigterm_is_gone_after_the_league(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("daemon_bot.py")], staged)
    run_cli(league)
    records = league.records()
    assert_league_intact(records)
    assert_sandboxed(league)
    assert not [fault for record in records for fault in record.faults], "the bot plays on after daemonising"
    assert "DAEMON READY" in league.log_text(), "the daemon was running (it wrote to the bot's log)"
    assert len(league.logs()) == ROTATIONS, "one process per rotation of the deal, none restarted"
    assert_no_process_left(staged.dir)


def test_row10_every_bot_process_dies_when_the_referee_is_sigkilled_mid_game(short_tmp: Path, staged: Staged) -> None:
    """The bot leaves a daemon ignoring SIGTERM, then stalls in its 3rd decision (move_ms is
    long): the referee is killed while it waits for that answer."""
    league = write_league(short_tmp, [staged("daemon_bot.py"), "--stall"], staged, move_ms=120_000)
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(league.config), "--no-live"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: "STALLING" in league.log_text() and "DAEMON READY" in league.log_text(), 60), league.log_text()
        running = processes_matching(str(staged.dir))
        # bwrap, its init and the bot, for each of the two bots, and the daemon
        assert len(running) >= 7, running
        referee.send_signal(signal.SIGKILL)
        referee.wait(30)
        assert_no_process_left(staged.dir, timeout_s=20)
        assert_sandboxed(league)
        assert_sandboxed(league, "random")
    finally:
        referee.kill()
        referee.wait(30)
        for pid, _ in processes_matching(str(staged.dir)):
            os.kill(pid, signal.SIGKILL)
        clean_stale_groups()  # the killed referee's empty cgroups
        remove_groups()
    assert not league.records(), "no game had finished"
