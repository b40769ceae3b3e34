"""Standings: points with ties, ranking order, order-independence, ratings, faults, times."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats
from tests.league_data.league_records import game_record

from referee.game.records import FAULT_KINDS, ActionRecord, FaultRecord, GameRecord
from referee.standings.table import CSV_HEADER, compute_standings, head_to_head, p95
from referee.standings.uncertainty import MIN_UNITS, Verdict


def test_points_count_opponents_outlasted_ties_half() -> None:
    standings = compute_standings([game_record("g1", ["a", "b", "c", "d"], [1, 2, 2, 4])])
    points = {row.bot: row.points for row in standings.rows}
    assert points == {"a": 3.0, "b": 1.5, "c": 1.5, "d": 0.0}
    a = standings.row("a")
    assert (a.games, a.wins, a.win_pct, a.mean_placement) == (1, 1, 100.0, 1.0)
    assert standings.row("d").mean_placement == 4.0
    assert standings.games == 1


def test_ranking_is_points_per_game_exact_ties_share_a_rank() -> None:
    records = [
        game_record("g1", ["x", "y", "z"], [1, 2, 3], fixture=0),
        game_record("g2", ["z", "y", "x"], [1, 2, 3], fixture=1),
    ]
    standings = compute_standings(records, bots=["w"])
    assert [row.bot for row in standings.rows] == ["x", "y", "z", "w"]  # equal points per game: by name; w has no game
    assert [row.points_per_game for row in standings.rows] == [1.0, 1.0, 1.0, 0.0]
    assert [row.rank for row in standings.rows] == [1, 1, 1, None]  # issue 41: w has no game yet, unranked
    assert [row.place_text for row in standings.rows] == ["1=", "1=", "1=", ""]
    assert [row.rank_text for row in standings.rows] == ["1–3", "1–3", "1–3", ""]


def test_unequal_game_counts_rank_by_strength_not_total() -> None:
    """The live ranking (issue 18): a bot that has simply played more games must not lead."""
    busy = [game_record(f"b{i}", ["busy", f"o{i}"], [1, 2] if i < 3 else [2, 1], fixture=i) for i in range(6)]
    fresh = [game_record("f0", ["fresh", "o9"], [1, 2], fixture=10), game_record("f1", ["fresh", "o8"], [1, 2], fixture=11)]
    standings = compute_standings(busy + fresh)
    assert standings.row("busy").points == 3.0 and standings.row("fresh").points == 2.0
    order = [row.bot for row in standings.rows]
    assert order.index("fresh") < order.index("busy")
    assert standings.row("fresh").rank < standings.row("busy").rank


def test_equal_bots_are_ordered_by_name() -> None:
    standings = compute_standings([], bots=["b", "c", "a"])
    assert [row.bot for row in standings.rows] == ["a", "b", "c"]
    assert all(row.mu == pytest.approx(25.0) and row.ordinal == pytest.approx(0.0, abs=1e-9) for row in standings.rows)


def test_openskill_rating_follows_placements_and_is_deterministic() -> None:
    records = [game_record(f"g{i}", ["a", "b", "c"], [1, 2, 2], fixture=i) for i in range(5)]
    first = compute_standings(records)
    again = compute_standings(list(reversed(records)))
    assert first == again
    a, b, c = (first.row(name) for name in "abc")
    assert a.mu > 25 > b.mu and b.mu == pytest.approx(c.mu) and b.sigma == pytest.approx(c.sigma)
    assert [row.bot for row in first.rows] == ["a", "b", "c"]  # b and c tie: by name
    assert a.sigma < 25 / 3 and a.ordinal == pytest.approx(a.mu - 3 * a.sigma)


def test_faults_by_kind_and_decision_times() -> None:
    actions = [
        ActionRecord(0, "play", "AS", 10.0),
        ActionRecord(0, "play", "KS", 30.0),
        ActionRecord(0, "play", "QS", 20.0),
        ActionRecord(0, "play", "JS", None, fault="crash"),
        ActionRecord(1, "play", "2H", 5.0),
    ]
    faults = [
        FaultRecord("timeout", 0, "a", 3, "took 1200 ms", ms=1200.0),
        FaultRecord("crash", 0, "a", 4, "exited with code 1"),
        FaultRecord("illegal", 1, "b", 6, "played AS, not in hand"),
    ]
    standings = compute_standings([game_record("g1", ["a", "b"], [2, 1], faults=faults, actions=actions)])
    a, b = standings.row("a"), standings.row("b")
    assert a.faults == {**dict.fromkeys(FAULT_KINDS, 0), "timeout": 1, "crash": 1}
    assert b.faults["illegal"] == 1 and b.fault_total == 1
    assert (a.median_ms, a.p95_ms) == (20.0, 30.0)
    assert (b.median_ms, b.p95_ms) == (5.0, 5.0)


def test_p95_is_nearest_rank() -> None:
    assert p95([float(v) for v in range(1, 101)]) == 95.0
    assert p95([3.0]) == 3.0
    assert p95([1.0, 2.0]) == 2.0


def four_rotations(deal: int, seats: list[str], placements: list[list[int]]) -> list[GameRecord]:
    """The rotations of one deal: same seed, same table; ``placements[r]`` per seat of rotation r."""
    records = []
    for rotation, places in enumerate(placements):
        turned = seats[rotation:] + seats[:rotation]
        record = game_record(f"d{deal}-r{rotation}", turned, places, fixture=deal * 10 + rotation)
        records.append(dataclasses.replace(record, seed=1000 + deal))
    return records


def test_the_rotations_of_a_deal_are_one_unit() -> None:
    """At one table (a balanced round-robin) the strength is the points per game and its
    interval the t interval over units, the rotations of a deal being one unit."""
    seats = ["a", "b", "c", "d"]
    records = []
    for deal in range(7):
        places = [[1, 2, 3, 4], [4, 1, 2, 3], [3, 4, 1, 2], [2, 3, 4, 1]] if deal % 2 else [[1, 2, 3, 4]] * 4
        records += four_rotations(deal, seats, [[2, 1, 3, 4]] * 4 if deal == 4 else places)
    standings = compute_standings(records)
    a = standings.row("a")
    assert a.games == 28 and a.strength is not None and a.strength.units == 7
    # a's points per game in each deal: 4 - its placement (no ties), averaged over the rotations
    units = [sum(4 - r.placements[r.seats.index("a")] for r in records if r.seed == 1000 + deal) / 4 for deal in range(7)]
    assert len(set(units)) > 1
    mean = sum(units) / 7
    assert a.points_per_game == pytest.approx(mean) and a.strength.estimate == pytest.approx(mean)
    half = scipy_stats.t.ppf(0.975, 6) * scipy_stats.sem(units)
    assert (a.strength.low, a.strength.high) == (pytest.approx(mean - half), pytest.approx(mean + half))


def test_too_few_units_give_no_interval_and_no_separation() -> None:
    """Issue 29: 2 units with no spread printed a zero-width interval and "separated"."""
    records = []
    for deal in range(MIN_UNITS - 1):
        records += [dataclasses.replace(game_record(f"d{deal}-r{r}", ["a", "b"][r:] + ["a", "b"][:r], [1, 2] if r == 0 else [2, 1], fixture=deal * 2 + r), seed=deal) for r in range(2)]
    standings = compute_standings(records)  # a won every game: still only 5 units
    assert [row.bot for row in standings.rows] == ["a", "b"]
    assert all(row.strength is not None and row.strength.low is None for row in standings.rows)
    assert [row.rank_range for row in standings.rows] == [(1, 2), (1, 2)]
    assert standings.verdicts.pairs[0].verdict is Verdict.OPEN


def test_rank_ranges_narrow_with_units() -> None:
    seats = ["a", "b", "c", "d"]
    records = []
    for deal in range(16):
        # a wins most deals, b usually second; c and d swap 3rd and 4th
        order = [[1, 2, 3, 4], [1, 2, 4, 3], [2, 1, 3, 4], [1, 3, 4, 2]][deal % 4]
        records += [dataclasses.replace(game_record(f"d{deal}-r{r}", seats, order, fixture=deal * 4 + r), seed=deal) for r in range(4)]
    standings = compute_standings(records)
    assert [row.bot for row in standings.rows] == ["a", "b", "d", "c"]  # points per game 2.75, 2.0, 0.75, 0.5
    assert [row.rank_text for row in standings.rows] == ["1–2", "1–2", "3–4", "3–4"]
    short = compute_standings([r for r in records if r.seed < 8])
    assert [row.rank_text for row in short.rows] == ["1–2", "1–3", "2–4", "3–4"]
    again = [dataclasses.replace(r, game_id=f"{r.game_id}x", seed=r.seed + 100, fixture=r.fixture + 1000) for r in records if r.seed < 8]
    longer = compute_standings(records + again)  # 24 deals: a and b apart too
    assert [row.rank_text for row in longer.rows] == ["1", "2", "3–4", "3–4"]


def test_identical_records_tie_over_thirty_bots() -> None:
    """The issue's case: 30 bots on exactly equal records must not be ranked 1 to 30."""
    names = [f"bot{i:02d}" for i in range(30)]
    records = [game_record(f"g{i}", [names[i], names[(i + 1) % 30]], [1, 1], fixture=i) for i in range(30)]
    standings = compute_standings(records)
    assert {row.rank for row in standings.rows} == {1}
    assert {row.rank_text for row in standings.rows} == {"1–30"}
    assert standings.verdicts.lines() == [
        "#1 bot00 / #2 bot01 too early to call: too few games yet",
        "places possible (95%, whole table at once): #1 bot00 1–30, #2 bot01 1–30",
        "#1 not decided after 30 games",
    ]


def test_withdrawn_and_remote_flags() -> None:
    record = game_record("g1", ["a", "b", "c"], [1, 2, 3], withdrawn=[False, False, True])
    standings = compute_standings([record], remote={"b"}, withdrawn={"a"})
    assert standings.row("c").withdrawn and standings.row("a").withdrawn and not standings.row("b").withdrawn
    assert standings.row("b").remote and not standings.row("a").remote


def test_head_to_head() -> None:
    records = [
        game_record("g1", ["a", "b", "c"], [1, 2, 2], fixture=0),
        game_record("g2", ["a", "b"], [2, 1], fixture=1),
    ]
    table = head_to_head(records)
    assert table[("a", "b")] == (1.0, 2) and table[("b", "a")] == (1.0, 2)
    assert table[("b", "c")] == (0.5, 1) and table[("a", "c")] == (1.0, 1) and table[("c", "a")] == (0.0, 1)
    assert compute_standings(records).head_to_head == table


def test_json_and_csv() -> None:
    standings = compute_standings([game_record("g1", ["a", "b"], [1, 2])], bots=["a", "b", "c"])
    data = json.loads(json.dumps(standings.to_json()))
    assert [row["bot"] for row in data["rows"]] == ["a", "b", "c"]  # c has no game: last
    assert data["ranking"] == "strength" and data["rows"][2]["rank_range"] is None and data["rows"][2]["rank"] is None
    assert data["rows"][0]["strength"] == {"estimate": 1.0, "interval": None, "units": 1} and data["rows"][0]["points_per_game"] == 1.0
    assert data["verdicts"][0]["text"] == "#1 a / #2 b too early to call: too few games yet"
    assert data["claims"]["groups"].startswith("groups: bots with no letter in common play differently")
    assert data["podium"] == [{"place": 1, "bot": "a", "rank_range": [1, 2]}, {"place": 2, "bot": "b", "rank_range": [1, 2]}]
    assert data["summary"] == "#1 not decided after 1 game"
    assert data["rows"][0]["rating"]["mu"] > 25 and data["rows"][0]["decision_ms"]["median"] is None
    assert {"bot": "a", "opponent": "b", "outlasted": 1.0, "met": 1} in data["head_to_head"]
    rows = standings.csv_rows()
    assert rows[0] == list(CSV_HEADER)
    assert all(len(row) == len(CSV_HEADER) for row in rows)
    assert rows[1][:13] == ["1", "1", "2", "", "a", "1", "", "", "1", "1", "1", "1", "100"]  # one unit each: no interval, ranks 1-2, no group
    assert rows[3][:5] == ["", "", "", "", "c"]  # no games: unranked
    assert rows[1][-1] == "#1 a / #2 b too early to call: too few games yet" and rows[2][-1] == ""
    assert standings.head_to_head_csv_rows() == [
        ["bot", "opponent", "outlasted", "met", "share"], ["a", "b", "1", "1", "1"], ["b", "a", "0", "1", "0"],
    ]


NAMES = ["ann", "bob", "cy", "dee", "eve"]


@st.composite
def game_records(draw: st.DrawFn) -> list[GameRecord]:
    count = draw(st.integers(0, 12))
    records = []
    for index in range(count):
        seats = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True))
        places = draw(st.lists(st.integers(2, len(seats)), min_size=len(seats) - 1, max_size=len(seats) - 1))
        winner = draw(st.integers(0, len(seats) - 1))
        places.insert(winner, 1)
        ms = draw(st.lists(st.one_of(st.none(), st.floats(0, 2000)), max_size=6))
        actions = [ActionRecord(i % len(seats), "play", "AS", value) for i, value in enumerate(ms)]
        faults = [FaultRecord("timeout", 0, seats[0], 1, "slow")] if draw(st.booleans()) else []
        records.append(game_record(f"g{index:02d}", seats, places, fixture=index, actions=actions, faults=faults))
    return records


@settings(max_examples=60, deadline=None)
@given(game_records(), st.randoms(use_true_random=False), st.booleans())
def test_standings_do_not_depend_on_record_order(records: list[GameRecord], random: object, duplicate: bool) -> None:
    shuffled = list(records) + (records[:1] if duplicate else [])
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    expected = compute_standings(records, bots=NAMES)
    assert compute_standings(shuffled, bots=list(reversed(NAMES))) == expected
    total = sum(row.points for row in expected.rows)
    assert total == pytest.approx(sum(len(r.seats) * (len(r.seats) - 1) / 2 for r in records))
    assert sum(row.games for row in expected.rows) == sum(len(r.seats) for r in records)
    for (a, b), (outlasted, met) in expected.head_to_head.items():
        assert outlasted + expected.head_to_head[(b, a)][0] == met
