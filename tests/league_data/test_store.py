"""The SQLite results store: round trip, resume rules, WAL, faults, read-only opening."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.errors import StoreError
from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.results.store import ResultsStore
from referee.standings.table import compute_standings
from tests.league_data.league_records import game_record

CONFIG = '[league]\nname = "demo"\n'


def open_store(path: Path, *, fingerprint: str = "f1", resume: bool = False, text: str = CONFIG) -> ResultsStore:
    return ResultsStore.open(path, league="demo", fingerprint=fingerprint, config_text=text, resume=resume)


def sample_records() -> list[GameRecord]:
    faults = [
        FaultRecord("timeout", 1, "b", 3, "took 1300 ms", request='{"game_id": "g2"}', answer="late", ms=1300.5),
        FaultRecord("startup", 2, "c", None, "no Hello in 10000 ms"),
    ]
    actions = [ActionRecord(0, "play", "AS", 1.5), ActionRecord(1, "play", "2S", None, fault="timeout")]
    return [
        game_record("t01-d1-r1", ["a", "b", "c"], [1, 2, 3], fixture=0),
        game_record("t01-d1-r2", ["b", "c", "a"], [1, 3, 2], fixture=1, faults=faults, actions=actions),
        game_record("t01-d1-r3", ["c", "a", "b"], [2, 1, 2], fixture=2, withdrawn=[True, False, False]),
    ]


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "results" / "deep" / "demo.sqlite"
    records = sample_records()
    with open_store(path) as store:
        for record in reversed(records):
            store.save_game(record)
        assert store.finished_game_ids() == {r.game_id for r in records}
    with ResultsStore.open_existing(path) as store:
        assert list(store.records()) == records  # ordered by fixture, every field intact
        assert store.record("t01-d1-r2") == records[1]
        assert store.game_count() == 3
        meta = store.meta()
        assert meta["league"] == "demo" and meta["fingerprint"] == "f1" and meta["config_text"] == CONFIG
        assert meta["created"].endswith("+00:00")
        assert compute_standings(store.records()) == compute_standings(records)


def test_faults_are_queryable(tmp_path: Path) -> None:
    with open_store(tmp_path / "r.sqlite") as store:
        for record in sample_records():
            store.save_game(record)
        every = store.faults()
        assert [(f.game_id, f.fault.kind) for f in every] == [("t01-d1-r2", "startup"), ("t01-d1-r2", "timeout")]
        only_b = store.faults("b")
        assert len(only_b) == 1 and only_b[0].fault == sample_records()[1].faults[0]
        assert store.faults("nobody") == []


def test_saving_a_game_again_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with open_store(path) as store:
        record = sample_records()[1]
        store.save_game(record)
        store.save_game(record)
        assert store.game_count() == 1 and len(store.faults()) == 2


def test_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with open_store(path) as store:
        store.save_game(sample_records()[0])
        connection = sqlite3.connect(path)
        try:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert connection.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1  # visible to a second reader
        finally:
            connection.close()


def test_fresh_run_refuses_a_store_with_games(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    with open_store(path) as store:
        store.save_game(sample_records()[0])
        store.save_game(sample_records()[1])
    with pytest.raises(StoreError) as raised:
        open_store(path)
    assert str(raised.value) == f"{path} already holds 2 games of league 'demo': use --resume to continue, or remove the file"


def test_resume_continues_with_the_same_config(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    with open_store(path) as store:
        store.save_game(sample_records()[0])
    with open_store(path, resume=True) as store:
        assert store.finished_game_ids() == {"t01-d1-r1"}
        store.save_game(sample_records()[1])
    with ResultsStore.open_existing(path) as store:
        assert store.game_count() == 2


def test_resume_refuses_a_changed_config(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    with open_store(path, text='[league]\n# the seed\nname = "a#b"\nseed = 1   # lucky\n') as store:
        store.save_game(sample_records()[0])
    with pytest.raises(StoreError) as raised:
        open_store(path, fingerprint="f2", resume=True, text='[league]\nname = "a#b"  # renamed comment\nseed = 2 # other\n')
    message = str(raised.value)
    assert message.startswith(f"config changed since the games in {path} were played")
    assert "'seed = 1' is now 'seed = 2'" in message and "\n" not in message


def test_an_empty_store_may_be_reused_with_another_config(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    open_store(path).close()
    with open_store(path, fingerprint="f2") as store:
        assert store.meta()["fingerprint"] == "f2"


def test_open_existing_needs_a_results_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    with pytest.raises(StoreError, match=r"no results at .*none\.sqlite: run `referee run CONFIG` first"):
        ResultsStore.open_existing(missing)
    assert not missing.exists()
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database at all, just text" * 100)
    with pytest.raises(StoreError, match="is not a results store"):
        ResultsStore.open_existing(junk)
    with pytest.raises(StoreError, match="is not a results store"):
        open_store(junk)


def test_missing_game_names_close_ids(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    with open_store(path) as store:
        for record in sample_records():
            store.save_game(record)
        with pytest.raises(StoreError) as raised:
            store.record("t01-d1-r9")
    message = str(raised.value)
    assert "no game 't01-d1-r9'" in message and "t01-d1-r1" in message and "referee replay" in message


def test_remove_deletes_wal_companions(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    store = open_store(path)
    store.save_game(sample_records()[0])
    store.close()
    Path(f"{path}-wal").write_bytes(b"")
    ResultsStore.remove(path)
    assert not path.exists() and not Path(f"{path}-wal").exists()
    with open_store(path) as store:
        assert store.game_count() == 0


def test_a_records_json_is_what_asdict_gives() -> None:
    """``to_json`` skips asdict's deep copy; the stored JSON must not change for it."""
    import json
    from dataclasses import asdict

    for record in sample_records():
        assert json.dumps(record.to_json()) == json.dumps(asdict(record))
        assert GameRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
