"""Issue 35: the futex supervisor ends in the middle of a league (docs/sandbox.md "Shared
futexes"). The referee says so in one line; the bots already running go on (a replacement
answers their shared waits: a kernel without a listener would answer ``ENOSYS``, and glibc
aborts on that); bots started after it get bubblewrap's refusing filter; the league completes
and no bot is charged for it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.sandbox import futexwait, spawner
from tests.conftest import REPO
from tests.sandbox.helpers import wait_for
from tests.sandbox_league.helpers import BAD, OTHER, Staged, assert_no_process_left, write_league

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(300)]

ENDED = "sandbox: the futex supervisor ended"


def supervisors_of(referee: int) -> list[int]:
    """The futex supervisor processes the referee ``referee`` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                command = (entry / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            if parent == referee and b"futex_supervisor.py" in command:
                found.append(int(entry.name))
    return found


def test_killing_the_supervisor_mid_league_is_said_once_and_charges_no_bot(short_tmp: Path, staged: Staged) -> None:
    if not spawner.notified_available():
        pytest.skip(f"no seccomp user notification here: {futexwait.problem()}")
    league = write_league(short_tmp, [staged("shared_wait_bot.py"), "0.05"], staged, deals=3)
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(league.config), "--no-live"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert wait_for(lambda: len(league.logs(BAD)) >= 1 and supervisors_of(referee.pid), 120), league.log_text()
        (first,) = supervisors_of(referee.pid)
        os.kill(first, signal.SIGKILL)
        out, err = referee.communicate(timeout=240)
    finally:
        referee.kill()
        referee.wait(30)
    assert referee.returncode == 0, out + err
    assert err.count(ENDED) == 1, err
    records = league.records()
    assert sorted(record.fixture for record in records) == list(range(6)), "the league completed"
    assert not [fault for record in records for fault in record.faults], "no bot is charged"
    starts = [path.read_text(errors="replace").splitlines()[0] for bot in (BAD, OTHER) for path in league.logs(bot)]
    assert any("shared futex waits answered by the referee" in line for line in starts), starts
    assert any("shared futex waits refused" in line for line in starts), "bots started after it get the refusing filter"
    assert "shared_wait_bot:" not in league.log_text(), "no wait ever got an answer a C library aborts on"
    assert_no_process_left(staged.dir, timeout_s=20)
