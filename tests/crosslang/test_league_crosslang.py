"""Issue 6 acceptance: Python, Node.js and C++ bots in one sandboxed league; remote bots
named by address; check-bot passes the Node.js and C++ samples."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, processes_matching, run_referee, write_config

pytestmark = pytest.mark.crosslang

SAMPLES = REPO / "sample_bots"


def records(results: Path) -> list[dict[str, object]]:
    with sqlite3.connect(results) as db:
        return [json.loads(row[0]) for row in db.execute("SELECT record FROM games ORDER BY fixture")]


def bot_block(name: str, line: str) -> str:
    return f'[[bots]]\nname = "{name}"\n{line}\n'


def league(tmp: Path, bots: str, *, table_size: int) -> Path:
    return write_config(
        tmp / "league.toml",
        f"""[league]
name = "crosslang"
seed = 3
table_size = {table_size}
deals = 1
concurrency = 2
results = "{tmp / 'league.sqlite'}"
[time]
move_ms = 1000
startup_ms = 20000
"""
        + bots,
    )


def test_python_node_and_cpp_bots_play_one_sandboxed_league(short_tmp: Path, needs_node: None, needs_cpp: None) -> None:
    bots = (
        bot_block("heuristic", 'command = ["python", "sample_bots/python/heuristic_bot.py"]')
        + bot_block("random", 'command = ["python", "sample_bots/python/random_bot.py"]')
        + bot_block("node", 'command = ["node", "sample_bots/node/bot.js"]')  # no ro_paths: its folder has what it needs
        + bot_block("cpp", 'command = ["sample_bots/cpp/build/kwhist_cpp_bot"]')
    )
    done = run_referee("run", str(league(short_tmp, bots, table_size=3)), "--no-live")
    assert done.returncode == 0, done.stderr
    games = records(short_tmp / "league.sqlite")
    assert len(games) == 4 * 3  # C(4,3) tables x 3 rotations
    assert [fault for game in games for fault in game["faults"]] == []
    seated = {name for game in games for name in game["seats"]}
    assert seated == {"heuristic", "random", "node", "cpp"}
    node_logs = sorted((short_tmp / "league").glob("node-*.log"))
    assert node_logs, "every bot process has a log"
    if os.environ.get("CI") == "true":
        assert "bwrap" in node_logs[0].read_text(errors="replace").splitlines()[0]
    assert not processes_matching(str(SAMPLES / "node")) and not processes_matching(str(SAMPLES / "cpp"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def remote_bot() -> Iterator[str]:
    """The Python sample bot started by hand on a TCP port of 127.0.0.1; its address."""
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [sys.executable, str(SAMPLES / "python" / "random_bot.py"), "--listen", address],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    host, port = address.split(":")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    yield address
    process.terminate()
    process.wait(timeout=10)


def test_a_remote_bot_named_by_address_plays_and_a_wrong_address_is_a_startup_fault(short_tmp: Path, remote_bot: str) -> None:
    dead = f"127.0.0.1:{free_port()}"  # nobody listens here
    bots = (
        bot_block("heuristic", 'command = ["python", "sample_bots/python/heuristic_bot.py"]')
        + bot_block("remote", f'address = "{remote_bot}"')
        + bot_block("nowhere", f'address = "{dead}"')
    )
    config = league(short_tmp, bots, table_size=2)
    config.write_text(config.read_text().replace("startup_ms = 20000", "startup_ms = 3000"))
    done = run_referee("run", str(config), "--no-live")
    assert done.returncode == 0, done.stderr
    games = records(short_tmp / "league.sqlite")
    assert len(games) == 3 * 2  # C(3,2) tables x 2 rotations: the league completed
    faults = [fault for game in games for fault in game["faults"]]
    assert faults and all(fault["bot"] == "nowhere" and fault["kind"] == "startup" for fault in faults)
    assert dead in faults[0]["detail"]
    remote_games = [game for game in games if "remote" in game["seats"] and "nowhere" not in game["seats"]]
    assert remote_games and all(not game["faults"] for game in remote_games)
    standings = json.loads(run_referee("standings", str(short_tmp / "league.sqlite"), "--format", "json").stdout)
    assert {row["bot"] for row in standings["rows"]} == {"heuristic", "remote", "nowhere"}
    assert "(remote)" in done.stdout


@pytest.mark.parametrize("command", [["node", "sample_bots/node/bot.js"], ["sample_bots/cpp/build/kwhist_cpp_bot"]])
def test_check_bot_passes_the_node_and_cpp_samples(command: list[str], needs_node: None, needs_cpp: None) -> None:
    done = run_referee("check-bot", "--games", "5", "--", *command)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
