"""A bot that thinks is not charged for a busy machine (docs/design.md §5, "A loaded
machine"): a bot that works a quarter of ``move_ms`` of its own CPU per decision, run by a
normal user under bubblewrap with no CPU cgroup, beside 4 busy loops, gets no timeout, and
neither do the sample bots of its league. (Issue 34 measured 23 timeouts in 8 games for
such a bot before its delays were judged on the bot's own time.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.results.store import ResultsStore
from tests.conftest import REPO, busy_loops
from tests.normal_user import NormalUser
from tests.sandbox_league.helpers import Staged, assert_no_process_left

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(900)]

MOVE_MS = 400
SAMPLES = REPO / "sample_bots" / "python"


def test_a_bot_thinking_a_quarter_of_its_time_gets_no_timeout_beside_4_busy_loops(staged: Staged, as_normal_user: NormalUser) -> None:
    user = as_normal_user
    results = user.home / "thinker.sqlite"
    thinker, heuristic = staged("quarter_thinker_bot.py"), staged(SAMPLES / "heuristic_bot.py")
    lines = [
        "[league]", 'name = "thinker"', "seed = 12", "table_size = 4", "deals = 2", "concurrency = 2", f'results = "{results}"',
        "[time]", f"move_ms = {MOVE_MS}", "grace_ms = 100", "startup_ms = 60000",
        "[faults]", "max_faults = 10",
        "[sandbox]", 'mode = "bwrap"',
    ]  # fmt: skip
    for name, command in (
        ("thinker", ["python", str(thinker), str(MOVE_MS / 4)]),
        ("heuristic", ["python", str(heuristic)]),
        ("random", ["python", str(staged.random)]),
        ("random-2", ["python", str(staged.random)]),
    ):
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    config = user.home / "thinker.toml"
    config.write_text("\n".join(lines) + "\n")
    user.give(config)
    with busy_loops(4):
        done = user.run("run", str(config), "--no-live", cwd=user.home, timeout=800)
    assert done.returncode == 0, done.stdout + done.stderr
    with ResultsStore.open_existing(results) as store:
        records = list(store.records())
    assert len(records) == 8
    faults = [(fault.bot, fault.kind, fault.detail) for record in records for fault in record.faults]
    assert faults == [], faults
    assert_no_process_left(staged.dir)
