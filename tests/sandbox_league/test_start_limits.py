"""A bot killed at start by a limit is told so in one line: which limit, its value, and the
config key that sets it (issue 37), in check-bot and in a league, whichever runtime it is
(Python's MemoryError, Node's failed allocation)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_referee, write_config

BOTS = Path(__file__).parent / "bots"
RANDOM = REPO / "sample_bots" / "python" / "random_bot.py"
TOLD = "memory limit 512 MiB reached (the config's [sandbox] memory_mb)"


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_check_bot_names_the_limit_that_killed_the_bot_at_start(runtime: str, short_tmp: Path) -> None:
    if runtime == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    script = BOTS / ("greedy_start_bot.py" if runtime == "python" else "greedy_start_bot.js")
    done = run_referee("check-bot", "--logs", str(short_tmp / "logs"), "--startup-ms", "30000", "--", runtime, str(script))
    assert done.returncode == 1, done.stdout + done.stderr
    hello = next(line for line in done.stdout.splitlines() if "answers Hello" in line)
    assert hello.startswith("FAIL") and f"exited with code 1: {TOLD}" in hello, hello
    assert "ALLOCATED" not in done.stdout


def test_a_league_says_in_one_line_which_limit_stopped_the_bot(short_tmp: Path) -> None:
    bots = {"greedy": BOTS / "greedy_start_bot.py", "random": RANDOM, "random-2": RANDOM}
    lines = ["[league]", 'name = "limits"', "table_size = 2", f'results = "{short_tmp / "limits.sqlite"}"', "[time]", "startup_ms = 30000"]
    for name, script in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(['python', str(script)])}"]
    config = write_config(short_tmp / "limits.toml", "\n".join(lines) + "\n")
    done = run_referee("run", str(config), "--no-live")
    told = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("bot greedy: does not start:")]
    assert told, done.stdout + done.stderr
    assert told[0].startswith(f"bot greedy: does not start: exited with code 1: {TOLD} (log: "), told[0]
