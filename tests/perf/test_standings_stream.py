"""Final standings from a long league: the store's records stream in batches and the
standings keep a small summary per game; results are unchanged (B6)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import referee.results.store as store_module
from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.results.store import ResultsStore
from referee.standings.table import compute_standings, head_to_head
from tests.league_data.league_records import game_record

BOTS = ["ann", "bob", "cy", "dee", "eve"]


def records(count: int) -> list[GameRecord]:
    rng = random.Random(count)
    made = []
    for index in range(count):
        seats = rng.sample(BOTS, 3)
        placements = rng.choice([[1, 2, 3], [2, 1, 2], [3, 1, 2], [1, 3, 2]])
        actions = [ActionRecord(rng.randrange(3), "play", "AS", rng.choice([None, rng.uniform(0.1, 900.0)])) for _ in range(rng.randrange(6))]
        faults = [FaultRecord("timeout", 1, seats[1], 2, "late", ms=1200.0)] if index % 7 == 0 else []
        made.append(game_record(f"g{index:04d}", seats, placements, fixture=index, actions=actions, faults=faults, withdrawn=[index % 11 == 0, False, False]))
    return made


def test_records_stream_in_batches_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "READ_BATCH", 3)
    games = records(20)
    with ResultsStore.open(tmp_path / "r.sqlite", league="demo", fingerprint="f", config_text="", resume=False) as store:
        for record in reversed(games):
            store.save_game(record)
        assert list(store.records()) == games
        assert compute_standings(store.records(), bots=BOTS) == compute_standings(games, bots=BOTS)


def test_a_game_removed_while_reading_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "READ_BATCH", 2)
    games = records(6)
    with ResultsStore.open(tmp_path / "r.sqlite", league="demo", fingerprint="f", config_text="", resume=False) as store:
        for record in games:
            store.save_game(record)
        stream = store.records()
        first = next(stream)
        with store._lock, store._db:
            store._db.execute("DELETE FROM games WHERE game_id = ?", (games[4].game_id,))
        rest = list(stream)
    assert [first, *rest] == games[:4] + games[5:]


def naive_times(games: list[GameRecord]) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}
    for record in {record.game_id: record for record in games}.values():
        for action in record.actions:
            if action.ms is not None:
                times.setdefault(record.seats[action.seat], []).append(action.ms)
    return times


def test_standings_of_a_stream_equal_those_of_a_list_with_duplicates() -> None:
    games = records(60)
    replayed = [*games, *reversed(games[10:20])]  # the same games again, later in the stream
    shuffled = replayed[:]
    random.Random(1).shuffle(shuffled)
    from_list = compute_standings(shuffled, bots=BOTS)
    assert compute_standings(iter(replayed), bots=BOTS) == from_list
    assert from_list.games == 60
    assert head_to_head(iter(shuffled)) == from_list.head_to_head
    for bot, times in naive_times(games).items():
        row = from_list.row(bot)
        ordered = sorted(times)
        assert row.median_ms == pytest.approx((ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2)
