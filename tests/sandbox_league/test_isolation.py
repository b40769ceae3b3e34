"""Rows 11 and 12 of sandbox.md "Misbehaving bots", and the private /proc, at the league
level (tests/sandbox/test_isolation.py shows the same for a bare process): a bot in a
league tries to connect to a port the test listens on, to read a file the test owns
outside its directory, and to see the host's processes. It reports what it saw through its
behaviour: its 3rd decision raises ``SNOOP <json>``, which becomes a ``malformed`` fault
whose detail the test reads."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox_league.helpers import (
    BAD,
    OTHER,
    ROTATIONS,
    League,
    Staged,
    assert_league_intact,
    assert_no_process_left,
    assert_sandboxed,
    faults_of,
    mine,
    run_in_process,
    write_league,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(120)]


def snoop_reports(league: League) -> list[dict[str, Any]]:
    """What the bot saw, from its one ``malformed`` fault in each game, asserting the
    league is intact, the bot sandboxed, its process kept (a fault is no kill)."""
    records, _ = run_in_process(league)
    assert_league_intact(records)
    assert_sandboxed(league)
    reports = []
    for record in records:
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["malformed"], faults
        assert faults[0].decision == mine(record)[2][0]
        assert "gRPC status INTERNAL: bot raised RuntimeError: SNOOP " in faults[0].detail, faults[0].detail
        reports.append(json.loads(faults[0].detail.split("SNOOP ", 1)[1]))
    assert len(league.logs()) == ROTATIONS, "one process per rotation of the deal, none restarted"
    return reports


def test_row11_a_connection_to_a_port_on_127_0_0_1_fails_and_the_listener_sees_nothing(
    short_tmp: Path, staged: Staged, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    league = write_league(short_tmp, [staged("snoop_bot.py"), "connect", str(port)], staged)
    for report in snoop_reports(league):
        assert report["connect"] in ("ENETUNREACH", "ECONNREFUSED"), report
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected
    assert_no_process_left(staged.dir)


def test_row12_a_file_of_the_referee_outside_the_bots_directory_is_not_found(
    short_tmp: Path, staged: Staged, secret: Path
) -> None:
    league = write_league(short_tmp, [staged("snoop_bot.py"), "read", str(secret)], staged)
    for report in snoop_reports(league):
        assert report["read"] == "FileNotFoundError", report
    assert_no_process_left(staged.dir)


def test_a_bot_sees_only_its_own_processes_in_proc(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("snoop_bot.py"), "proc"], staged)
    for report in snoop_reports(league):
        proc = report["proc"]
        assert proc["others"] == 0, "no process but the bot's own (and bwrap's init) is visible"
        assert proc["count"] <= 3 and proc["max"] < 10 and proc["me"] <= proc["max"], proc
    assert_no_process_left(staged.dir)


def test_the_same_bot_does_escape_without_the_sandbox(
    short_tmp: Path, staged: Staged, secret: Path, listener: socket.socket, rlimits_python: str
) -> None:
    """Control: in rlimits mode the probe reads the file, connects and sees the host's
    processes, so the tests above can fail."""
    port = listener.getsockname()[1]
    command: list[str | Path] = [staged("snoop_bot.py"), "read", str(secret), "connect", str(port), "proc"]
    league = write_league(short_tmp, command, staged, mode="rlimits", python=rlimits_python)
    records, screen = run_in_process(league)
    assert "sandbox: rlimits only — bots can reach the network, read your files, share the host's /tmp" in screen
    assert_league_intact(records)
    for bot in (BAD, OTHER):
        assert_sandboxed(league, bot, "rlimits")  # a slot uid, never root
    for record in records:
        detail = next(fault.detail for fault in record.faults if fault.bot == BAD)
        report = json.loads(detail.split("SNOOP ", 1)[1])
        assert report["read"] == "READ the referee's secret" and report["connect"] == "CONNECTED", report
        assert report["proc"]["others"] > 0, report
        connection, _ = listener.accept()
        connection.close()
    assert_no_process_left(staged.dir)
