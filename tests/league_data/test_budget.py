"""The movement league's budget and sequential stop, round by round, and its resume:
a fake clock, a real results store, hand-made records (no bots)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.league_data.league_records import game_record

from referee.config.settings import LeagueSettings
from referee.league.budget import MovementRounds, too_long_warning
from referee.results.store import ResultsStore
from referee.schedule.fixture import Fixture
from referee.standings.table import Standings, compute_standings
from referee.standings.uncertainty import Verdict
from referee.standings.verdicts import Sequential

NAMES = [f"bot{i}" for i in range(8)]  # tables of 4: a round is 2 tables x 4 rotations = 8 games


def settings(**changes: object) -> LeagueSettings:
    base = LeagueSettings("class", 7, 4, 1, 4, Path("x.sqlite"), "movement", ())
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def open_store(path: Path, resume: bool = False) -> ResultsStore:
    return ResultsStore.open(path, league="class", fingerprint="f", config_text="", resume=resume)


def play(store: ResultsStore, fixtures: list[Fixture], clock: Clock, seconds_per_game: float, *, stop_after: int | None = None) -> None:
    """Store a record for each fixture (seat 0 always wins), advancing the clock."""
    done = store.finished_game_ids()
    for count, fixture in enumerate(fixture for fixture in fixtures if fixture.game_id not in done):
        if stop_after is not None and count >= stop_after:
            return
        record = game_record(fixture.game_id, fixture.seats, [1, 2, 3, 4], fixture=fixture.index)
        store.save_game(dataclasses.replace(record, seed=fixture.seed))
        clock.now += seconds_per_game


def rounds_of(league: LeagueSettings, store: ResultsStore, clock: Clock, said: list[str]) -> MovementRounds:
    def standings(sequential: Sequential) -> Standings:
        return compute_standings(store.records(), bots=NAMES, sequential=sequential)

    return MovementRounds(league, NAMES, store, standings, said.append, clock=clock)


def test_games_budget_plays_whole_rounds(tmp_path: Path) -> None:
    clock, said = Clock(), []
    store = open_store(tmp_path / "a.sqlite")
    rounds = rounds_of(settings(games=30), store, clock, said)
    assert rounds.games_per_round == 8 and rounds.planned_games() == 24
    played = 0
    while (batch := rounds.next_round()) is not None:
        assert {fixture.round for fixture in batch} == {played}
        play(store, list(batch), clock, 1.0)
        played += 1
    assert played == 3 and store.game_count() == 24
    assert said == ["budget reached: 3 rounds, 24 games (games = 30)"]


def test_minutes_budget_stops_at_a_round_boundary_within_budget(tmp_path: Path) -> None:
    clock, said = Clock(), []
    store = open_store(tmp_path / "a.sqlite")
    rounds = rounds_of(settings(minutes=1.0), store, clock, said)  # 60 s at 2 s a game: 3 rounds of 16 s, not a 4th
    played = 0
    while (batch := rounds.next_round()) is not None:
        play(store, list(batch), clock, 2.0)
        played += 1
    assert played == 3 and rounds.seconds_played() <= 60
    assert said[0].startswith("time budget reached: 3 rounds, 24 games; ") and "round 4 would end at 1:04, past the 1:00 budget" in said[0]
    assert rounds.stop_reason == "time budget"


def test_a_resumed_league_finishes_its_started_round_and_keeps_its_time(tmp_path: Path) -> None:
    clock, said = Clock(), []
    path = tmp_path / "a.sqlite"
    store = open_store(path)
    first = rounds_of(settings(minutes=1.0), store, clock, said)
    batch = first.next_round()
    assert batch is not None
    play(store, list(batch), clock, 2.0)
    batch = first.next_round()  # round 2 started, interrupted after 3 games
    assert batch is not None
    round_two = list(batch)
    play(store, round_two, clock, 2.0, stop_after=3)
    first.save_time()  # as `referee run` does when interrupted
    store.close()

    clock.now += 1000  # time away does not count
    store = open_store(path, resume=True)
    again = rounds_of(settings(minutes=1.0), store, clock, said)
    assert again.rounds_started == 2 and 20 <= again.seconds_played() <= 22
    replay = again.next_round()
    assert replay is not None and {f.game_id for f in replay} == {f.game_id for f in make_round(0)}
    replay = again.next_round()
    assert replay is not None and [f.game_id for f in replay] == [f.game_id for f in round_two]
    play(store, list(replay), clock, 2.0)
    assert store.game_count() == 16  # nothing replayed, nothing skipped
    batch = again.next_round()  # round 3: 32 s + 16 s <= 60 s
    assert batch is not None and {f.round for f in batch} == {2}
    play(store, list(batch), clock, 2.0)
    assert again.next_round() is None and store.game_count() == 24


def make_round(number: int) -> list[Fixture]:
    from referee.schedule.movement import movement_fixtures

    return [f for f in movement_fixtures(NAMES, 4, 1, 7, number + 1) if f.round == number]


def _play_bot0_first(rounds: MovementRounds, store: ResultsStore) -> int:
    """Play every round ``rounds`` gives, bot0 winning each of its games and everyone else
    placed by seat, storing each game; -> the rounds played."""
    played = 0
    while (batch := rounds.next_round()) is not None:
        for fixture in batch:
            order = sorted(range(4), key=lambda seat: (fixture.seats[seat] != "bot0", seat))
            places = [0] * 4
            for place, seat in enumerate(order, start=1):
                places[seat] = place
            record = game_record(fixture.game_id, fixture.seats, places, fixture=fixture.index)
            store.save_game(dataclasses.replace(record, seed=fixture.seed))
        played += 1
    return played


def test_separated_stop_ends_early_when_the_top_is_clear(tmp_path: Path) -> None:
    clock, said = Clock(), []
    store = open_store(tmp_path / "a.sqlite")
    rounds = rounds_of(settings(games=8 * 40, stop="separated"), store, clock, said)
    played = _play_bot0_first(rounds, store)
    assert 2 <= played < 40
    assert said[0].startswith("decided after") and "#1 bot0 ahead of #2 " in said[0]
    kept = Sequential.from_text(store.meta()["sequential"])
    assert kept.stopped == "decided" and kept.rounds == played
    assert [(d.first, d.verdict, d.round) for d in kept.decided] == [("bot0", Verdict.AHEAD, played)]


def test_every_look_keeps_its_verdicts_and_the_stop_reason(tmp_path: Path) -> None:
    """Issue 29: a league on a budget (no sequential stop) still keeps each pair's verdict
    with the round that decided it, and why it stopped; the standings read them back."""
    clock, said = Clock(), []
    store = open_store(tmp_path / "a.sqlite")
    rounds = rounds_of(settings(games=8 * 14, separate=2), store, clock, said)
    played = _play_bot0_first(rounds, store)
    assert played == 14 and said[0].startswith("budget reached: 14 rounds")
    kept = Sequential.from_text(store.meta()["sequential"])
    assert (kept.separate, kept.rounds, kept.stopped) == (2, 14, "games budget")
    standings = compute_standings(store.records(), bots=NAMES, sequential=kept)
    second = standings.rows[1].bot
    first = next(d for d in kept.decided if (d.first, d.second) == ("bot0", second))
    assert first.verdict is Verdict.AHEAD and first.round is not None and 5 <= first.round <= 14  # 10 units: 5 rounds
    assert min(d.round or 99 for d in kept.decided if d.first == "bot0") < 14  # decided before the budget ended
    lines = standings.verdicts.lines()
    assert lines[0] == f"#1 bot0 ahead of #2 {second} (decided after {first.round} rounds)"
    assert len(lines) == 4 and lines[2].startswith("places possible") and lines[3].startswith("top 2 ")


def test_an_hour_long_round_robin_says_so_and_names_the_budgeted_format() -> None:
    league = settings(format="round_robin")
    assert too_long_warning(840, league) is None
    warning = too_long_warning(109_620, league)
    assert warning is not None and "1.5 h" in warning and 'format = "movement"' in warning
