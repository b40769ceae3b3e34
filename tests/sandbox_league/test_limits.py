"""Rows 4-7 of sandbox.md "Misbehaving bots": a fork bomb, 10 GiB of memory, a 5 GiB
file, 100 000 open files, each from a bot in a league under bwrap. The bot meets the
limit; the league finishes with every other game intact; no process of the bot is left.
Rows 4 and 5 also on a host whose controllers are in the older v1 hierarchy (made by the
``cgroup_host`` fixture), where the rlimits alone meet them and the start says so."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.sandbox import cgroups
from tests.sandbox_league.helpers import (
    BAD,
    GAMES,
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
MOVE_MS = 5000  # the limit is met within the decision it starts in, however loaded the host


def crash_faults(league: League) -> list[str]:
    """The detail of the bot's one crash fault in each game (asserting there is one)."""
    details = []
    for record in league.records():
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["crash"], faults
        assert faults[0].decision == mine(record)[2][0], "it crashed on its 3rd decision"
        later = [action for _, action in mine(record)[3:]]
        assert all(action.ms is None for action in later), "the referee plays its seat for the rest of the game"
        details.append(faults[0].detail)
    assert len(league.logs()) == GAMES, "one process per game: each rotation has its own (docs/design.md §6)"
    return details


@pytest.fixture(params=["host", "cgroup-v1-host"])
def host(request: pytest.FixtureRequest) -> str:
    """This host as it is, and a host with cgroup v1 only (no cgroup: the rlimits bound)."""
    if request.param == "cgroup-v1-host":
        make: Callable[[str], Path] = request.getfixturevalue("cgroup_host")
        make("hybrid")
    return str(request.param)


def assert_host_said(league: League, host: str, printed: str) -> None:
    """On a cgroup v1 host, the start said so in one line, and no bot process had a cgroup."""
    if host == "cgroup-v1-host":
        assert printed.splitlines().count(cgroups.LEGACY_WARNING) == 1, printed
        for path in [*league.logs(), *league.logs(OTHER)]:
            first = path.read_text(errors="replace").splitlines()[0]
            assert "cgroup none, RLIMIT_DATA on" in first, first


def test_row4_a_fork_bomb_fails_inside_the_bot_and_nothing_else_notices(short_tmp: Path, staged: Staged, host: str) -> None:
    league = write_league(short_tmp, [staged("fork_bomb_bot.py")], staged, move_ms=MOVE_MS)
    records, printed = run_in_process(league)
    assert_host_said(league, host, printed)
    assert_league_intact(records)
    assert_sandboxed(league)
    log = league.log_text()
    match = re.search(r"FORKED (\d+) ERROR (\w+)", log)
    assert match, log
    assert 0 < int(match.group(1)) < 32, "forks stop below the process limit (pids = 32)"
    assert match.group(2) == "BlockingIOError"
    assert not [fault for record in records for fault in record.faults], "the bomber itself plays on, unfaulted"
    assert len(league.logs()) == ROTATIONS, "one process per rotation of the deal: the bomb killed none"
    assert subprocess.run(["true"], timeout=30).returncode == 0, "the referee can still fork"
    assert_no_process_left(staged.dir)


def test_row5_allocating_10_gib_is_a_crash_naming_the_memory_limit(short_tmp: Path, staged: Staged, host: str) -> None:
    league = write_league(short_tmp, [staged("memory_hog_bot.py")], staged, move_ms=MOVE_MS)
    records, printed = run_in_process(league)
    assert_host_said(league, host, printed)
    assert_league_intact(records)
    assert_sandboxed(league)
    for detail in crash_faults(league):
        assert "memory limit 256 MiB reached" in detail, detail
    assert "ALLOCATED" not in league.log_text()
    assert_no_process_left(staged.dir)


def test_row6_a_5_gib_file_stops_at_the_file_size_limit(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("big_file_bot.py")], staged, move_ms=MOVE_MS)
    records, _ = run_in_process(league)
    assert_league_intact(records)
    assert_sandboxed(league)
    for detail in crash_faults(league):
        assert "exited with code 1: file size limit 8 MiB reached" in detail, detail
    log = league.log_text()
    assert log.count(f"SIZE {8 * 1024 * 1024}\n") == 2, log
    assert "File too large" in log and "WROTE" not in log
    biggest = max((path.stat().st_size for path in short_tmp.rglob("*") if path.is_file()), default=0)
    assert biggest < 8 * 1024 * 1024, "the bot's file is gone with its private directory"
    assert_no_process_left(staged.dir)


def test_row7_opening_100k_files_stops_at_the_open_files_limit(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("many_files_bot.py")], staged, move_ms=MOVE_MS)
    records, _ = run_in_process(league)
    assert_league_intact(records)
    assert_sandboxed(league)
    for detail in crash_faults(league):
        assert "exited with code 1: open files limit 64 reached" in detail, detail
    opened = [int(n) for n in re.findall(r"OPENED (\d+)", league.log_text())]
    assert len(opened) == 2 and all(0 < n < 64 for n in opened), opened
    assert_no_process_left(staged.dir)
