"""Each fault kind from a real misbehaving bot process over real gRPC, through
``referee run``: the kind, the stored evidence (request, answer, ms) and the placement
rule for forfeits (docs/design.md §5). Preset ``strict``: the first fault forfeits. The
faults of a decision are judged alike whether the bot is asked by unary ``Decide`` or on
its ``Play`` stream: each such case runs on both paths."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import PATHS
from tests.faults.helpers import BOTS, CHECKBOT_BOTS, RANDOM, assert_forfeit_placement, fault_round, run_league


@dataclass(frozen=True)
class Case:
    kind: str
    script: Path
    answer: str  # text the stored answer contains
    detail: str  # text the stored detail contains


CASES = {
    "timeout": Case("timeout", BOTS / "timeout_bot.py", "DEADLINE_EXCEEDED", "deadline of 400 ms exceeded"),
    "malformed-kind": Case("malformed", BOTS / "wrong_kind_bot.py", '"choose_trump"', "decision asked was PLAY_CARD"),
    "malformed-status": Case("malformed", BOTS / "raising_bot.py", "INTERNAL", "my strategy has a bug"),
    "illegal": Case("illegal", CHECKBOT_BOTS / "offsuit_bot.py", "", "does not follow suit: you hold"),
    "crash": Case("crash", BOTS / "crash_bot.py", "UNAVAILABLE", "exited with code 3"),
    "protocol": Case("protocol", BOTS / "old_protocol_bot.py", '"protocol_major":2', "speaks protocol 2.0, the referee 1.1"),
    "startup": Case("startup", BOTS / "dies_at_start_bot.py", "exited with code 7", "dies_at_start: giving up"),
}


BEFORE_ANY_DECISION = ("startup", "protocol")  # no decision is asked: one path is enough
RUNS = [(name, path) for name in CASES for path in PATHS if CASES[name].kind not in BEFORE_ANY_DECISION or path == "stream"]


@pytest.mark.parametrize(("name", "path"), RUNS, ids=[f"{name}-{path}" for name, path in RUNS])
def test_fault_kind_evidence_and_forfeit_placement(name: str, path: str, short_tmp: Path) -> None:
    case = CASES[name]
    records = run_league(short_tmp, {"faulty": case.script, "random": RANDOM, "random-2": RANDOM}, path=path)
    assert len(records) == 3, "the league finishes: one table, one deal, three rotations"
    for record in records:
        seat = record.seats.index("faulty")
        faults = [fault for fault in record.faults if fault.bot == "faulty"]
        assert [fault.kind for fault in faults] == [case.kind], (record.game_id, faults)
        assert not [fault for fault in record.faults if fault.bot != "faulty"], "the sample bots never fault"
        fault = faults[0]
        assert fault.seat == seat
        assert case.detail in fault.detail
        assert case.answer in fault.answer
        assert fault.ms is not None and fault.ms >= 0
        request = json.loads(fault.request)
        if case.kind in ("startup", "protocol"):
            assert fault.decision is None
            assert request["protocol_major"] == 1
        else:
            assert fault.decision is not None
            assert request["decision_number"] == fault.decision
            assert request["view"]["seat"] == seat
            assert request["legal"], "the stored request holds the legal actions"
            action = record.actions[fault.decision]
            assert action.fault == case.kind and action.seat == seat, "the fallback is recorded with the fault"
        if case.kind == "illegal":
            assert fault.answer and record.actions[fault.decision].action != fault.answer, "the illegal card is not played"
        if case.kind == "timeout":
            assert fault.ms >= 300, "the measured time is kept"
        assert_forfeit_placement(record, seat)
        assert record.knocked_out_round[seat] == fault_round(record, fault.decision)
