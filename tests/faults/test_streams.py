"""What only a ``Play`` stream can get wrong, with real bot processes over real gRPC
through ``referee run`` (docs/protocol.md, "Time and faults"): an answer naming another
decision, a stream the bot ends mid-game. Each is fault ``malformed`` with its evidence;
the referee opens a new stream for the seat's next decision and the game goes on. And a
league with bots of both kinds at one table plays exactly as one asking all by unary
``Decide``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.game.records import GameRecord
from tests.conftest import REPO, assert_asked_over
from tests.faults.helpers import BOTS, RANDOM, run_league

HEURISTIC = REPO / "sample_bots" / "python" / "heuristic_bot.py"
STREAM_FAULTS = {
    "wrong-number": ("names decision_number", '"decision_number"'),
    "quit": ("the bot ended its Play stream without answering decision", "OK: the Play stream ended"),
}


@pytest.mark.parametrize("mode", list(STREAM_FAULTS))
def test_a_stream_fault_is_malformed_and_the_seat_plays_on_over_a_new_stream(mode: str, short_tmp: Path) -> None:
    detail, answer = STREAM_FAULTS[mode]
    bot = ["python", str(BOTS / "stream_fault_bot.py"), "--mode", mode]
    records = run_league(
        short_tmp,
        {"faulty": bot, "random": RANDOM, "random-2": RANDOM},
        faults='preset = "league"\nmax_faults = 3',
        rules="start_hand_size = 4",
        path="stream",
    )
    assert len(records) == 3, "the league finishes"
    log = "".join(path.read_text() for path in (short_tmp / "faults").glob("faulty-*.log"))
    for record in records:
        seat = record.seats.index("faulty")
        faults = [fault for fault in record.faults if fault.bot == "faulty"]
        assert [fault.kind for fault in faults] == ["malformed"], (record.game_id, faults)
        assert not [fault for fault in record.faults if fault.bot != "faulty"]
        fault = faults[0]
        assert detail in fault.detail and answer in fault.answer, fault
        assert json.loads(fault.request)["decision_number"] == fault.decision
        mine = [index for index, action in enumerate(record.actions) if action.seat == seat]
        assert fault.decision == mine[1], "its second decision"
        later = [record.actions[index] for index in mine[2:]]
        assert later and all(action.fault is None and action.ms is not None for action in later), "the bot answers on"
        assert not record.forfeited[seat]
        assert log.count(f"Play opened {record.game_id}\n") == 2, "a new stream after the fault, and one only"


def _without_times(record: GameRecord) -> dict[str, Any]:
    """The record as stored, less what the clock measured (ms, and last_decision_ms in a request)."""
    data = record.to_json()
    for row in (*data["actions"], *data["faults"]):
        row.pop("ms", None)
    for fault in data["faults"]:
        if fault["request"]:
            request = json.loads(fault["request"])
            request.pop("last_decision_ms", None)
            fault["request"] = request
    return data


def test_a_league_of_stream_and_unary_bots_plays_as_an_all_unary_one(short_tmp: Path) -> None:
    bots: dict[str, list[str] | Path] = {
        "random": RANDOM,
        "heuristic": HEURISTIC,
        "random-unary": ["python", str(RANDOM), "--unary"],
        "heuristic-unary": ["python", str(HEURISTIC), "--unary"],
        "wrong-kind": BOTS / "wrong_kind_bot.py",  # a fault at each decision: the same evidence either way
    }
    options: dict[str, Any] = {"faults": 'preset = "league"\nmax_faults = 10', "deals": 1, "table_size": 5}
    for run in ("mixed", "unary"):
        (short_tmp / run).mkdir()
    mixed = run_league(short_tmp / "mixed", bots, **options)
    logs = {log.name.rsplit("-", 1)[0]: log.read_text() for log in (short_tmp / "mixed" / "faults").glob("*.log")}
    for name in bots:
        assert ("decisions over unary Decide" if name.endswith("unary") else "decisions over the Play stream") in logs[name], name
    unary = run_league(short_tmp / "unary", bots, path="unary", **options)
    assert_asked_over(short_tmp / "unary" / "faults", "unary")
    assert len(mixed) == len(unary) == 5
    assert any(record.faults for record in mixed)
    assert [_without_times(record) for record in mixed] == [_without_times(record) for record in unary]
