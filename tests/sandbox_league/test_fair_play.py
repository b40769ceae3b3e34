"""Issue 23: no bot sees a deal twice. A bot that remembers every deal it has seen plays a
league of duplicate deals: at its first decision of a later rotation it never knows another
seat's cards (docs/design.md §6). ``referee play`` keeps one process per seat (it has no
standings to protect): there the same bot does recognise the deal, which shows that its
memory works. Nor can a bot read the league's results while it is played."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from referee.game.records import GameRecord
from referee.results.store import ResultsStore
from tests.conftest import run_referee
from tests.normal_user import NormalUser
from tests.sandbox_league.helpers import BAD, Staged, assert_no_process_left, assert_sandboxed, run_in_process, write_league

DEALS = 3


def memory_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line.split("MEMORY ", 1)[1]) for line in text.splitlines() if line.startswith("MEMORY ")]


def round1_hands(record: GameRecord) -> list[set[str]]:
    return [set(hand) for hand in record.rounds[0]["hands"]]


def test_a_memory_bot_never_knows_another_seats_cards_in_a_later_rotation(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("memory_bot.py")], staged)
    league.config.write_text(league.config.read_text().replace("deals = 1", f"deals = {DEALS}"))
    records, _ = run_in_process(league)
    assert len(records) == 2 * DEALS, "the league completed"
    assert_sandboxed(league)
    lines = memory_lines(league.log_text())
    assert sorted(line["game"] for line in lines) == sorted(record.game_id for record in records), lines
    later = [line for line in lines if not line["game"].endswith("-r1")]
    assert later, "the memory bot played later rotations"
    for line in lines:
        assert not line["recognised"] and line["known"] == {}, f"it knew another seat's cards: {line}"
    rotations = {record.game_id: record.rotation for record in records}
    games_of = [re.findall(r"\[referee\] game (\S+): seat", path.read_text(errors="replace")) for path in league.logs()]
    for games in games_of:
        deals = [re.sub(r"-r\d+$", "", game) for game in games]
        assert len(deals) == len(set(deals)), f"one process played two rotations of a deal: {games}"
    assert max(len(games) for games in games_of) > 1 or DEALS == 1, "a process is reused for other deals"
    assert {rotations[game] for games in games_of for game in games} == {0, 1}
    assert_no_process_left(staged.dir)


def test_the_same_bot_does_remember_where_one_process_plays_every_rotation(short_tmp: Path, staged: Staged) -> None:
    """``referee play`` (one process per seat, no deal rule): in game play-2, the second
    rotation of play-1's deal, the memory bot knows the other seat's round-1 hand."""
    results = short_tmp / "play.sqlite"
    done = run_referee(
        "play", f"memory=python {staged('memory_bot.py')}", f"random=python {staged.random}", "--games", "2",
        "--seed", "3", "--sandbox", "bwrap", "--results", str(results),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with ResultsStore.open_existing(results) as store:
        records = {record.game_id: record for record in store.records()}
    text = "".join(path.read_text(errors="replace") for path in sorted(results.with_suffix("").glob("memory-*.log")))
    lines = {line["game"]: line for line in memory_lines(text)}
    assert not lines["play-1"]["recognised"]
    second = lines["play-2"]
    assert second["recognised"], second
    hands = round1_hands(records["play-2"])
    assert second["known"], second
    for seat, cards in second["known"].items():
        assert set(cards) <= hands[int(seat)], (seat, cards, hands)
    assert sum(len(cards) for cards in second["known"].values()) >= 5, "it knew most of the other hand"


def snoop_reports(records: list[GameRecord]) -> list[dict[str, Any]]:
    """What the snoop bot saw, from its fault in each game."""
    reports = []
    for record in records:
        detail = next(fault.detail for fault in record.faults if fault.bot == BAD and "SNOOP " in fault.detail)
        reports.append(json.loads(detail.split("SNOOP ", 1)[1]))
    return reports


def test_a_bot_cannot_read_the_results_of_its_league_in_the_rlimits_mode(short_tmp: Path, staged: Staged, rlimits_python: str) -> None:
    """Under a root referee an rlimits bot runs as a slot uid: the results file (0600) and
    the league's run folder (0700: the bots' logs) are closed to it. (As a normal user the
    rlimits bots run as the teacher: nothing keeps them out, docs/sandbox.md.)"""
    if os.geteuid() != 0:
        pytest.skip("as a normal user the rlimits mode runs the bots as the referee's own uid")
    results = short_tmp / "league.sqlite"
    short_tmp.chmod(0o755)  # the folder above the results lets everyone through: only the file's mode keeps them out
    command: list[str | Path] = [staged("snoop_bot.py"), "read", str(results), "list", str(results.with_suffix(""))]
    league = write_league(short_tmp, command, staged, mode="rlimits", python=rlimits_python)
    records, _ = run_in_process(league)
    assert len(records) == 2, "the league completed"
    for report in snoop_reports(records):
        assert report == {"read": "PermissionError", "list": "PermissionError"}, report
    assert results.stat().st_mode & 0o777 == 0o600
    assert results.with_suffix("").stat().st_mode & 0o777 == 0o700
    assert_no_process_left(staged.dir)


def test_results_inside_a_bots_folder_are_hidden_from_it_under_bubblewrap(
    short_tmp: Path, staged: Staged, as_normal_user: NormalUser
) -> None:
    """A normal user's referee, and results kept inside the bot's own folder (which the
    sandbox shows it, and where it runs as the teacher's uid): the results folder is an
    empty tmpfs inside the sandbox."""
    folder = staged.dir / "results"
    folder.mkdir()
    results = folder / "league.sqlite"
    league = write_league(short_tmp, [staged("snoop_bot.py"), "read", str(results), "list", str(folder)], staged)
    league.config.write_text(league.config.read_text().replace(f'results = "{short_tmp / "league.sqlite"}"', f'results = "{results}"'))
    short_tmp.chmod(0o755)
    as_normal_user.give(short_tmp, folder)
    done = as_normal_user.run("run", str(league.config), "--no-live", cwd=short_tmp)
    assert done.returncode == 0, done.stdout + done.stderr
    with ResultsStore.open_existing(results) as store:
        records = list(store.records())
    assert len(records) == 2, "the league completed"
    for report in snoop_reports(records):
        assert report == {"read": "FileNotFoundError", "list": []}, report
    assert_no_process_left(staged.dir)
