"""Row 8 of sandbox.md "Misbehaving bots": a bot prints 1 GiB (512 MiB to stdout, 512 MiB
to stderr) while it plays, in a league run by a real referee process. Its log is capped
with the dropped bytes counted, the referee's peak memory stays far below what was
printed, and no decision of either bot is disturbed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.sandbox_league.helpers import (
    GAMES,
    Staged,
    assert_league_intact,
    assert_no_process_left,
    assert_sandboxed,
    write_league,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(180)]

MiB = 1024 * 1024
KEPT = 2 * 16 * 1024  # output_kb = 16: the head and the tail of each stream


def run_measured(config: Path, tmp: Path) -> tuple[int, int]:
    """``referee run CONFIG --no-live`` as a child process -> (exit status, its peak
    resident memory in KiB: ru_maxrss from wait4, which covers it and what it waited for)."""
    with open(tmp / "referee.out", "wb") as out:
        referee = subprocess.Popen(
            [sys.executable, "-m", "referee", "run", str(config), "--no-live"], cwd=REPO, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            _pid, status, usage = os.wait4(referee.pid, 0)
        finally:
            referee.returncode = 0  # reaped above; keep Popen from waiting again
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss


def test_row8_a_1_gib_flood_is_capped_and_counted_and_the_referee_stays_small(short_tmp: Path, staged: Staged) -> None:
    # the flood starts on its 3rd decision of the first game and is over by its 3rd decision
    # of that process's next game (a rotation of the second deal), which waits for it: a long
    # move_ms leaves room for that wait
    league = write_league(short_tmp, [staged("flood_bot.py")], staged, move_ms=60_000, deals=2)
    status, peak_kib = run_measured(league.config, short_tmp)
    assert status == 0, (short_tmp / "referee.out").read_text()
    records = league.records()
    assert_league_intact(records, 2 * GAMES)
    assert_sandboxed(league)
    assert not [fault for record in records for fault in record.faults], "no decision of either bot was disturbed"
    # 1 GiB went through the referee: had it been kept, the peak would be above 1 GiB (wait4 also
    # counts the processes the referee waited for, so leave room for them on a loaded machine)
    assert peak_kib < 512 * 1024, f"the referee peaked at {peak_kib // 1024} MiB while the bot printed 1024 MiB"
    [log] = [path for path in league.logs() if "game t01-d1-r1:" in path.read_text(errors="replace")]
    assert log.stat().st_size < 2 * KEPT + 16 * 1024, "the log holds the kept bytes and little else"
    text = log.read_bytes().decode(errors="replace")
    assert f"[stdout: {512 * MiB} bytes, {512 * MiB - KEPT} dropped]" in text, text[-500:]
    stderr = re.search(r"\[stderr: (\d+) bytes, (\d+) dropped\]", text)
    assert stderr, text[-500:]
    total, dropped = int(stderr.group(1)), int(stderr.group(2))
    assert total >= 512 * MiB and total - dropped == KEPT, "512 MiB and the bot's own lines, all counted"
    assert_no_process_left(staged.dir)
