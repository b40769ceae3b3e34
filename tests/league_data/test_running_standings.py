"""Issue 27: standings kept as games finish (referee.standings.running) equal the standings
recomputed from scratch, for any games in any order, looked at any time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.standings import running as running_module
from referee.standings.running import RunningStandings
from referee.standings.table import compute_standings
from referee.standings.verdicts import Sequential
from tests.league_data.league_records import game_record

NAMES = [f"bot{index}" for index in range(7)]


@st.composite
def a_game(draw: st.DrawFn, number: int) -> GameRecord:
    size = draw(st.integers(2, 4))
    seats = draw(st.lists(st.sampled_from(NAMES), min_size=size, max_size=size))  # a bot may hold two seats
    placements = draw(st.lists(st.integers(1, size), min_size=size, max_size=size))
    fixture = draw(st.integers(0, 12))
    faults = [FaultRecord("timeout", seat, seats[seat], 3, "late") for seat in draw(st.sets(st.integers(0, size - 1), max_size=2))]
    actions = [ActionRecord(seat, "play", "AS", draw(st.floats(0.1, 50.0))) for seat in range(size)]
    withdrawn = draw(st.lists(st.booleans(), min_size=size, max_size=size)) if draw(st.booleans()) and number % 5 == 0 else []
    game_id = f"g{draw(st.integers(0, number))}" if draw(st.integers(0, 9)) == 0 else f"g{number}"  # now and then an id seen before
    return game_record(game_id, seats, placements, fixture=fixture, faults=faults, actions=actions, withdrawn=withdrawn)


@st.composite
def games_and_looks(draw: st.DrawFn) -> tuple[list[GameRecord], set[int]]:
    count = draw(st.integers(0, 40))
    games = [draw(a_game(number)) for number in range(count)]
    looks = draw(st.sets(st.integers(0, max(0, count - 1)), max_size=6))
    return games, looks


@settings(max_examples=120, deadline=None)
@given(games_and_looks(), st.integers(1, 3))
def test_kept_standings_equal_those_recomputed_from_scratch(case: tuple[list[GameRecord], set[int]], separate: int) -> None:
    games, looks = case
    sequential = Sequential(separate=separate)
    every, running_module.CHECKPOINT_EVERY = running_module.CHECKPOINT_EVERY, 3  # rate again from copies within these few games
    try:
        check(games, looks, sequential)
    finally:
        running_module.CHECKPOINT_EVERY = every


def check(games: list[GameRecord], looks: set[int], sequential: Sequential) -> None:
    running = RunningStandings(NAMES[:3])
    for index, game in enumerate(games):
        running.add(game)
        if index in looks:  # a look mid-league (the live display, a movement round) changes nothing
            kept = running.standings(sequential=sequential)
            assert kept.to_json() == compute_standings(games[: index + 1], bots=NAMES[:3], sequential=sequential).to_json()
    kept = running.standings(remote={"bot1"}, withdrawn={"bot2"}, sequential=sequential)
    fresh = compute_standings(games, bots=NAMES[:3], remote={"bot1"}, withdrawn={"bot2"}, sequential=sequential)
    assert kept.to_json() == fresh.to_json()
    assert kept.rows == fresh.rows and kept.head_to_head == fresh.head_to_head


def test_a_look_does_not_change_with_later_games() -> None:
    """The rows given out are not the running tallies: folding more games leaves them be."""
    running = RunningStandings()
    running.add(game_record("g0", ["a", "b"], [1, 2], fixture=0, faults=[FaultRecord("timeout", 0, "a", 1, "late")]))
    before = running.standings()
    running.add(game_record("g1", ["a", "b"], [1, 2], fixture=1, faults=[FaultRecord("timeout", 0, "a", 1, "late")]))
    assert before.row("a").faults["timeout"] == 1 and running.standings().row("a").faults["timeout"] == 2
