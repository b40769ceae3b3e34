"""Bots started through a wrapper, run by a normal user without a memory or CPU cgroup (issue
37, sandbox.md row 19): a Node bot behind ``run.sh``, an executable ``#!/usr/bin/env node``
script, and a Java bot behind ``run.sh`` each pass check-bot and play a league with no
fault. Their memory is bounded by what they commit (``RLIMIT_DATA``), not by the address
space V8 and the JVM reserve, under which they died before Hello."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from referee.results.store import ResultsStore
from tests.conftest import REPO
from tests.crosslang.helpers import JAVA_JAR, NODE_DIR, java_problem, link_or_copy, node_problem, readable_by_all, require
from tests.normal_user import NormalUser

pytestmark = [pytest.mark.crosslang, pytest.mark.sandbox, pytest.mark.timeout(900)]

NODE_RUN = """#!/bin/sh
cd "$(dirname "$0")"
exec node bot.js
"""
JAVA_RUN = """#!/bin/bash
# the JVM as it starts by default (no -XX:+UseSerialGC): its heap sized to the bot's memory limit
cd "$(dirname "$0")"
exec java -jar kwhist-java-bot.jar
"""


def staged_bots(root: Path) -> dict[str, list[str]]:
    """The three wrapped bots in ``root`` (where a normal user reaches them): name -> command."""
    node = root / "node-wrapped"
    shutil.copytree(NODE_DIR, node, copy_function=link_or_copy, symlinks=True)
    (node / "run.sh").write_text(NODE_RUN)
    script = root / "node-script"
    shutil.copytree(NODE_DIR, script, copy_function=link_or_copy, symlinks=True)
    (script / "bot.js").unlink()  # its own copy: the mode of a hard link is the original's
    shutil.copy(NODE_DIR / "bot.js", script / "bot.js")
    assert (script / "bot.js").read_text().startswith("#!/usr/bin/env node\n")
    java = root / "java-wrapped"
    java.mkdir()
    shutil.copy(JAVA_JAR, java)
    (java / "run.sh").write_text(JAVA_RUN)
    for path in (node / "run.sh", script / "bot.js", java / "run.sh"):
        path.chmod(0o755)
    for folder in (node, script, java):
        readable_by_all(folder)
    return {"node-run": [str(node / "run.sh")], "node-script": [str(script / "bot.js")], "java-run": [str(java / "run.sh")]}


@pytest.fixture
def wrapped(short_tmp: Path, needs_bwrap: None, as_normal_user: NormalUser) -> dict[str, list[str]]:
    require(node_problem())
    require(java_problem())
    short_tmp.chmod(0o755)
    return staged_bots(short_tmp)


def test_each_wrapped_bot_passes_check_bot(wrapped: dict[str, list[str]], short_tmp: Path, as_normal_user: NormalUser) -> None:
    for name, command in wrapped.items():
        logs = short_tmp / f"logs-{name}"
        logs.mkdir()
        as_normal_user.give(logs)
        done = as_normal_user.run(
            "check-bot", "--logs", str(logs), "--games", "2", "--startup-ms", "30000", "--move-ms", "5000", "--", *command,
            cwd=short_tmp,
        )  # fmt: skip
        assert done.returncode == 0, f"{name}:\n{done.stdout}{done.stderr}"
        assert "checks passed" in done.stdout and "FAIL" not in done.stdout, done.stdout
        first = sorted(logs.glob("*.log"))[0].read_text(errors="replace").splitlines()[0]
        assert "mode bwrap" in first and "RLIMIT_DATA on" in first, first


def test_the_wrapped_bots_play_a_league_without_a_fault(wrapped: dict[str, list[str]], short_tmp: Path, as_normal_user: NormalUser) -> None:
    results = short_tmp / "league"
    results.mkdir()
    as_normal_user.give(results)
    lines = [
        "[league]", 'name = "wrapped"', "table_size = 4", "deals = 1", "concurrency = 2",
        f'results = "{results / "wrapped.sqlite"}"',
        "[time]", "move_ms = 5000", "startup_ms = 30000",
    ]  # fmt: skip
    bots = {**wrapped, "heuristic": ["python", str(REPO / "sample_bots" / "python" / "heuristic_bot.py")]}
    heuristic = short_tmp / "heuristic"
    shutil.copytree(REPO / "sample_bots" / "python", heuristic)
    readable_by_all(heuristic)
    bots["heuristic"] = ["python", str(heuristic / "heuristic_bot.py")]
    for name, command in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    config = short_tmp / "wrapped.toml"
    config.write_text("\n".join(lines) + "\n")
    config.chmod(0o644)
    done = as_normal_user.run("run", str(config), "--no-live", cwd=short_tmp)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "does not start" not in done.stdout + done.stderr
    with ResultsStore.open_existing(results / "wrapped.sqlite") as store:
        records = list(store.records())
    assert len(records) == 4, "one table of four, one deal, four rotations"
    assert [(fault.bot, fault.kind, fault.detail) for record in records for fault in record.faults] == []
