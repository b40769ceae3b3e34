"""Issue 23: a bot that faults on purpose cannot grow the results file. A stored detail and
answer are cut to 1 KiB with the whole size noted; a seat's faults after its third in a game
keep no request and answer (docs/design.md §5)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from referee.game.records import DETAIL_BYTES, EVIDENCE_PER_SEAT, FaultRecord, cut, stored_faults
from tests.faults.helpers import BOTS, RANDOM, run_league


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("short", "short"),
        ("é" * (DETAIL_BYTES // 2), "é" * (DETAIL_BYTES // 2)),  # exactly the limit in UTF-8
        ("x" * (DETAIL_BYTES + 1), "x" * DETAIL_BYTES + f"… [cut: {DETAIL_BYTES + 1} bytes in all]"),
        ("é" * DETAIL_BYTES, "é" * (DETAIL_BYTES // 2) + f"… [cut: {2 * DETAIL_BYTES} bytes in all]"),
        ("a" + "€" * DETAIL_BYTES, "a" + "€" * ((DETAIL_BYTES - 1) // 3) + f"… [cut: {1 + 3 * DETAIL_BYTES} bytes in all]"),
    ],
)
def test_cut_keeps_whole_characters_and_notes_the_size(text: str, expected: str) -> None:
    assert cut(text) == expected


def test_a_seats_faults_after_its_third_keep_no_evidence() -> None:
    faults = [FaultRecord("malformed", seat, "b", decision, "d" * 5000, "{}", "a" * 5000, 1.0) for decision, seat in enumerate([0, 1, 0, 0, 0, 1, 0])]
    kept = stored_faults(faults)
    assert [(f.seat, f.decision) for f in kept] == [(f.seat, f.decision) for f in faults], "every fault is counted"
    seat0 = [f for f in kept if f.seat == 0]
    assert [bool(f.request) for f in seat0] == [True] * EVIDENCE_PER_SEAT + [False] * (len(seat0) - EVIDENCE_PER_SEAT)
    assert all(f.answer == "" for f in seat0[EVIDENCE_PER_SEAT:])
    assert all(len(f.detail.encode()) < DETAIL_BYTES + 40 and "[cut: 5000 bytes in all]" in f.detail for f in kept)


def test_a_bot_faulting_with_huge_messages_stores_a_few_kb_per_game(tmp_path: Path, path: str) -> None:
    """The loud bot faults at every decision with a 20 KB message, up to max_faults = 10 a
    game: each stored detail is cut, and the game's faults take a few KB in the file (they
    took ~390 KB a game when stored uncut)."""
    records = run_league(tmp_path, {"loud": BOTS / "loud_fault_bot.py", "random": RANDOM}, faults='preset = "league"\nmax_faults = 10', deals=2, path=path)
    assert len(records) == 4
    for record in records:
        loud = [fault for fault in record.faults if fault.bot == "loud"]
        assert len(loud) == 10, [f.kind for f in loud]
        for fault in loud:
            assert len(fault.detail.encode()) <= DETAIL_BYTES + 40
            assert "bytes in all]" in fault.detail, fault.detail[-80:]
            assert len(fault.answer.encode()) <= DETAIL_BYTES + 40
        assert sum(bool(fault.request) for fault in loud) == EVIDENCE_PER_SEAT
    with sqlite3.connect(tmp_path / "faults.sqlite") as db:
        blobs = [len(row[0]) for row in db.execute("SELECT record FROM games")]
        fault_bytes = db.execute("SELECT SUM(LENGTH(detail) + LENGTH(request) + LENGTH(answer)) FROM faults").fetchone()[0]
    per_game = (sum(blobs) + fault_bytes) / len(blobs)
    assert per_game < 60_000, per_game
    assert json.loads  # the records above were read back through the store
