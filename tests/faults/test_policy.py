"""The ``league`` preset end to end (docs/design.md §5): forfeit after ``max_faults``, restart
after a crash, withdrawal after ``max_restarts``; the ``debug`` preset's trace; and
``referee faults``. Real bot processes over real gRPC, through the command line."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

from referee.results.store import ResultsStore
from tests.conftest import processes_matching, run_referee
from tests.faults.helpers import BOTS, RANDOM, assert_forfeit_placement, run_league


def test_forfeit_after_max_faults_plays_fallbacks_for_the_rest_of_the_round(short_tmp: Path, path: str) -> None:
    records = run_league(
        short_tmp,
        path=path,
        bots={"faulty": BOTS / "wrong_kind_bot.py", "random": RANDOM, "random-2": RANDOM},
        faults='preset = "league"\nmax_faults = 2',
    )
    assert len(records) == 3
    for record in records:
        seat = record.seats.index("faulty")
        faults = [fault for fault in record.faults if fault.bot == "faulty"]
        assert [fault.kind for fault in faults] == ["malformed", "malformed"], "no fault is counted after the forfeit"
        second = faults[1].decision
        assert second is not None
        assert (second, seat) in record.forfeits
        later = [action for action in record.actions[second + 1 :] if action.seat == seat]
        assert later, "the forfeiting seat still acts until the round's end"
        assert all(action.ms is None and action.fault is None for action in later), "the referee plays its fallbacks"
        assert record.knocked_out_round[seat] == 1
        assert_forfeit_placement(record, seat)

    results = str(short_tmp / "faults.sqlite")
    listing = run_referee("faults", results, "--bot", "faulty", "--full")
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.count("MALFORMED") == 6
    for label in ("why:", "asked:", "answered:", "legal:", "request:"):
        assert label in listing.stdout
    assert "asked to play a card" in listing.stdout and '"choose_trump"' in listing.stdout
    assert "6 faults: malformed 6" in listing.stdout
    assert f"faulty (seat {records[0].seats.index('faulty')})" in listing.stdout, "seats are named 'seat N'"
    assert run_referee("faults", results, "--bot", "random").stdout.count("MALFORMED") == 0

    summary = run_referee("faults", results)
    assert summary.returncode == 0, summary.stderr
    assert "faulty: 6 faults: malformed 6" in summary.stdout
    assert summary.stdout.count("MALFORMED") == 1, "the first example of each kind only"
    assert "first malformed:" in summary.stdout

    as_json = json.loads(run_referee("faults", results, "--format", "json").stdout)
    assert as_json["summary"]["faulty"]["malformed"] == 6 and as_json["summary"]["faulty"]["total"] == 6
    assert len(as_json["faults"]) == 6 and {row["kind"] for row in as_json["faults"]} == {"malformed"}
    assert all(row["request"] and row["game_id"] for row in as_json["faults"])
    rows = list(csv.DictReader(io.StringIO(run_referee("faults", results, "--format", "csv").stdout)))
    assert len(rows) == 6 and rows[0]["bot"] == "faulty" and rows[0]["kind"] == "malformed"
    for row in as_json["faults"]:  # each fault leads to its log, and the log to the game
        log = Path(row["log"])
        assert f"[referee] game {row['game_id']} decision {row['decision']}: malformed fault" in log.read_text()
    assert "log:" in listing.stdout
    unknown = run_referee("faults", str(short_tmp / "faults.sqlite"), "--bot", "nobody")
    assert unknown.returncode == 2 and "no bot named 'nobody'" in unknown.stderr


def test_a_crashed_bot_is_restarted_before_its_next_game(short_tmp: Path, path: str) -> None:
    records = run_league(
        short_tmp,
        path=path,
        bots={"crasher": BOTS / "crash_bot.py", "random": RANDOM},
        faults='preset = "league"\nmax_faults = 3\nmax_restarts = 5',
        deals=2,
    )
    assert len(records) == 4
    for record in records:
        seat = record.seats.index("crasher")
        faults = [fault for fault in record.faults if fault.bot == "crasher"]
        assert [fault.kind for fault in faults] == ["crash"]
        mine = [action for action in record.actions if action.seat == seat]
        assert all(action.ms is not None for action in mine[:2]), "a fresh process answers the first decisions of every game"
        assert "exited with code 3" in faults[0].answer
        assert (faults[0].decision, seat) in record.forfeits, "a crash forfeits the game at once"
        assert_forfeit_placement(record, seat)
    logs = sorted((short_tmp / "faults").glob("crasher-*.log"))
    assert len(logs) == 4, "one process per game: each crash is followed by a restart"


def test_a_bot_that_dies_at_every_start_is_withdrawn_and_the_league_finishes(short_tmp: Path) -> None:
    records = run_league(
        short_tmp,
        {"dier": BOTS / "dies_at_start_bot.py", "random": RANDOM, "random-2": RANDOM},
        faults='preset = "league"\nmax_restarts = 1',
        deals=2,
    )
    assert len(records) == 6, "the league finishes"
    faults = [fault for record in records for fault in record.faults]
    assert [fault.kind for fault in faults] == ["startup", "startup"], "started max_restarts + 1 times, then withdrawn"
    assert all(fault.bot == "dier" and "exited with code 7" in fault.answer for fault in faults)
    assert len(list((short_tmp / "faults").glob("dier-*.log"))) == 2
    for record in records:
        seat = record.seats.index("dier")
        assert all(action.ms is None for action in record.actions if action.seat == seat), "the fallback plays its seat"
        assert_forfeit_placement(record, seat)
    assert all(record.withdrawn[record.seats.index("dier")] for record in records[2:])

    standings = run_referee("standings", str(short_tmp / "faults.sqlite"), "--format", "json")
    rows = {row["bot"]: row for row in json.loads(standings.stdout)["rows"]}
    assert rows["dier"]["withdrawn"] and not rows["random"]["withdrawn"]
    assert rows["dier"]["faults"]["startup"] == 2
    assert rows["dier"]["rank"] == 3
    table = run_referee("standings", str(short_tmp / "faults.sqlite"))
    assert "dier (withdrawn)" in table.stdout
    listing = run_referee("faults", str(short_tmp / "faults.sqlite"), "--full").stdout
    first = records[0]
    assert f"dier (seat {first.seats.index('dier')})" in listing and "(P" not in listing
    assert "asked:    Hello (protocol 1." in listing, "the Hello request actually sent"
    assert "ran: " in faults[0].detail and "dies_at_start_bot.py" in faults[0].detail, "the command actually run"
    assert "log " in faults[0].detail and ".log" in faults[0].detail
    assert not processes_matching(str(BOTS))


def test_debug_preset_has_no_time_limit_and_traces_every_request_and_reply(short_tmp: Path) -> None:
    records = run_league(
        short_tmp,
        {"slow": ["python", str(BOTS / "timeout_bot.py"), "--sleep-ms", "600"], "random": RANDOM},
        time="move_ms = 100\ngrace_ms = 0",
        faults='preset = "debug"',
        rules="start_hand_size = 2",
    )
    assert len(records) == 2
    for record in records:
        assert not record.faults, "no time limits in the debug preset"
        slow = record.seats.index("slow")
        assert any(action.ms is not None and action.ms >= 600 for action in record.actions if action.seat == slow)
        lines = [json.loads(line) for line in (short_tmp / "faults" / "trace" / f"{record.game_id}.jsonl").read_text().splitlines()]
        assert [line["decision"] for line in lines] == list(range(len(record.actions)))
        assert [line["played"] for line in lines] == [action.action for action in record.actions]
        for line in lines:
            assert line["request"]["decision_number"] == line["decision"]
            assert line["request"]["time_left_ms"] == 0 and line["request"]["bank_left_ms"] == 0
            assert line["answer"] == line["played"]


def drop_games_from(results: Path, fixture: int) -> None:
    """Remove the stored games from ``fixture`` on, as a kill -9 there would have left it."""
    with sqlite3.connect(results) as db:
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("DELETE FROM games WHERE fixture >= ?", (fixture,))


def test_a_resume_remembers_restarts_and_withdrawals(short_tmp: Path) -> None:
    """A bot withdrawn after its startup faults stays withdrawn on resume: its counts
    and the standings equal an uninterrupted run's."""
    bots: dict[str, list[str] | Path] = {"dier": BOTS / "dies_at_start_bot.py", "random": RANDOM, "random-2": RANDOM}
    records = run_league(short_tmp, bots, faults='preset = "league"\nmax_restarts = 1', deals=2, rules="start_hand_size = 3")
    whole = {record.game_id: (record.placements, [f.kind for f in record.faults]) for record in records}
    results = short_tmp / "faults.sqlite"
    before = json.loads(run_referee("standings", str(results), "--format", "json").stdout)["rows"]
    drop_games_from(results, 3)

    again = run_referee("run", str(short_tmp / "league.toml"), "--no-live", "--resume")
    assert again.returncode == 0, again.stdout + again.stderr
    with ResultsStore.open_existing(results) as store:
        resumed = {record.game_id: (record.placements, [f.kind for f in record.faults]) for record in store.records()}
    assert resumed == whole, "the same games, the same faults: the withdrawn bot was not started again"
    after = json.loads(run_referee("standings", str(results), "--format", "json").stdout)["rows"]
    assert [(row["bot"], row["points"], row["faults"], row["withdrawn"]) for row in after] == [
        (row["bot"], row["points"], row["faults"], row["withdrawn"]) for row in before
    ]
    assert len(list((short_tmp / "faults").glob("dier-*.log"))) == 2, "started max_restarts + 1 times in all"


def test_a_resume_refuses_a_bot_whose_code_changed(short_tmp: Path) -> None:
    mine = short_tmp / "bots" / "mine.py"
    mine.parent.mkdir()
    shutil.copy(RANDOM, mine)
    run_league(short_tmp, {"mine": mine, "random": RANDOM}, rules="start_hand_size = 2")
    results = short_tmp / "faults.sqlite"
    drop_games_from(results, 1)
    mine.write_text(mine.read_text() + "\n# fixed\n")

    refused = run_referee("run", str(short_tmp / "league.toml"), "--no-live", "--resume")
    assert refused.returncode == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "bot 'mine' changed" in lines[0] and "restore its files" in lines[0], refused.stderr

    shutil.copy(RANDOM, mine)  # restored: the league finishes
    again = run_referee("run", str(short_tmp / "league.toml"), "--no-live", "--resume")
    assert again.returncode == 0, again.stderr


def test_a_stuck_bot_replaced_after_two_timeouts_still_gets_its_game_over(short_tmp: Path, path: str) -> None:
    records = run_league(
        short_tmp,
        path=path,
        bots={"slow": ["python", str(BOTS / "timeout_bot.py"), "--sleep-ms", "4000", "--concurrent"], "random": RANDOM},
        time="move_ms = 300\ngrace_ms = 100",
        faults='preset = "league"\nmax_faults = 10',
        rules="start_hand_size = 2",
    )
    assert len(records) == 2
    logs = "".join(path.read_text() for path in (short_tmp / "faults").glob("slow-*.log"))
    for record in records:
        assert [fault.kind for fault in record.faults if fault.bot == "slow"][:2] == ["timeout", "timeout"]
        assert f"game over {record.game_id}" in logs, "told the result before it is replaced"
    assert len(list((short_tmp / "faults").glob("slow-*.log"))) == 2, "the stuck process is replaced for the next game"
