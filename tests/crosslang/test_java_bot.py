"""The Java sample bot (sample_bots/java, built by `make bots` from Debian's packages): the
JVM starts in the sandbox (it reads /etc/java-17-openjdk), the bot serves on the Unix socket
it is given, passes every check of `referee check-bot` in the sandbox, and plays a league
against the other samples without a fault."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import run_referee, write_config
from tests.crosslang.helpers import JAVA_COMMAND

pytestmark = [pytest.mark.crosslang, pytest.mark.usefixtures("needs_java"), pytest.mark.timeout(600)]


def test_the_java_bot_passes_check_bot_in_the_sandbox(short_tmp: Path) -> None:
    done = run_referee(
        "check-bot", "--logs", str(short_tmp / "logs"), "--startup-ms", "30000", "--move-ms", "5000", "--games", "4", "--", *JAVA_COMMAND
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 15 checks passed" in done.stdout
    assert "as 'java-sample'" in done.stdout
    first = next((short_tmp / "logs").glob("*.log")).read_text(errors="replace").splitlines()[0]
    if os.environ.get("CI") == "true":
        assert "mode bwrap" in first, first


def test_the_java_bot_plays_a_league_without_a_fault(short_tmp: Path) -> None:
    lines = [
        "[league]", 'name = "java"', "seed = 4", "table_size = 3", "deals = 1", "concurrency = 2",
        f'results = "{short_tmp / "java.sqlite"}"', "[time]", "move_ms = 3000", "startup_ms = 30000",
        "[[bots]]", 'name = "java"', f"command = {json.dumps(JAVA_COMMAND)}",
        "[[bots]]", 'name = "heuristic"', 'command = ["python", "sample_bots/python/heuristic_bot.py"]',
        "[[bots]]", 'name = "random"', 'command = ["python", "sample_bots/python/random_bot.py"]',
    ]  # fmt: skip
    done = run_referee("run", str(write_config(short_tmp / "java.toml", "\n".join(lines) + "\n")), "--no-live")
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(short_tmp / "java.sqlite") as db:
        records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games")]
    assert len(records) == 3
    assert [fault for record in records for fault in record["faults"]] == []
