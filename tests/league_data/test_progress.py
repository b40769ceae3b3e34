"""League-level progress (issue 28 items 1-5): the games of the planned or budgeted total,
the round, the time over every run of the league (also after --resume) and the ETA to the
budget or the schedule's end; the same numbers from the store as from the running league."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.league.progress import Plan, league_progress, progress_parts
from referee.league.runstate import STALE_S, RunClock, stored_progress
from referee.results.store import ResultsStore
from tests.league_data.league_records import game_record

CLASS = Plan(games_per_round=60, minutes=10.0)  # 30 bots at tables of 4, a 10-minute budget


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_minutes_budget_plans_the_rounds_that_fit_and_the_eta_runs_to_its_end() -> None:
    """Mid-league, not at the end of the round: round 3 of about 7, ETA to round 7's end."""
    progress = league_progress(CLASS, done=125, rounds_started=3, elapsed_s=170.0, rate=125 / 170, state="running")
    assert (progress.round, progress.rounds, progress.planned, progress.approximate) == (3, 7, 420, True)
    assert progress.eta_s == pytest.approx((420 - 125) * 170 / 125)
    assert progress_parts(progress) == ["125/~420 games", "round 3 of ~7", "elapsed 2:50", "ETA ~6:41 (budget 10:00)"]
    end_of_round = league_progress(CLASS, done=180, rounds_started=3, elapsed_s=245.0, rate=180 / 245, state="running")
    assert end_of_round.eta_s is not None and end_of_round.eta_s > 60, "the ETA is the league's, not the round's"


def test_a_games_budget_and_a_fixed_schedule_are_exact() -> None:
    games = Plan(games_per_round=60, max_rounds=7)
    progress = league_progress(games, done=125, rounds_started=3, elapsed_s=100.0, rate=1.25, state="running")
    assert progress_parts(progress) == ["125/420 games", "round 3 of 7", "elapsed 1:40", "ETA 3:56"]
    fixed = league_progress(Plan(games=840), done=120, rounds_started=0, elapsed_s=357.0, rate=120 / 357, state="running")
    assert progress_parts(fixed) == ["120/840 games", "elapsed 5:57", "ETA 35:42"]
    both = Plan(games_per_round=60, max_rounds=5, minutes=10.0)
    assert league_progress(both, done=125, rounds_started=3, elapsed_s=170.0, rate=125 / 170, state="running").rounds == 5


def test_a_finished_league_planned_what_it_played_and_says_why() -> None:
    progress = league_progress(
        CLASS, done=420, rounds_started=7, elapsed_s=598.0, rate=0.7, state="finished", reason="time budget",
        line="time budget reached: 7 rounds, 420 games in 9:58; round 8 would end at 11:24, past the 10:00 budget (0.7 games/s)",
    )  # fmt: skip
    assert progress_parts(progress) == ["420/420 games", "7 rounds", "elapsed 9:58", "finished: time budget"]
    assert progress.percent == 100.0 and progress.eta_s == 0.0


def test_the_elapsed_time_goes_on_across_resumes_and_the_store_says_the_same(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    store = ResultsStore.open(path, league="class", fingerprint="f", config_text="", resume=False)
    clock, wall = Clock(100.0), Clock(1_000_000.0)
    first = RunClock(store, CLASS, clock=clock, wall=wall)
    first.start()
    for number in range(30):
        store.save_game(game_record(f"g{number}", ["a", "b"], [1, 2], fixture=number))
    clock.now += 45.0
    wall.now += 45.0
    first.end("interrupted", "interrupted with 30 games stored")
    store.close()

    wall.now += 3600  # an hour away does not count
    store = ResultsStore.open(path, league="class", fingerprint="f", config_text="", resume=True)
    again = RunClock(store, CLASS, clock=clock, wall=wall)
    assert again.progress().elapsed_s == pytest.approx(45.0), "before the resumed run starts"
    again.start()
    clock.now += 10.0
    wall.now += 10.0
    for number in range(30, 40):
        store.save_game(game_record(f"g{number}", ["a", "b"], [1, 2], fixture=number))
    again.rounds_started = 1
    store.set_meta("rounds_started", "1")
    mine = again.progress()
    assert mine.elapsed_s == pytest.approx(55.0) and mine.state == "running"
    theirs = stored_progress(store.meta(), store.game_count(), wall.now)
    assert theirs == mine, "the web site computes the numbers the terminal shows"
    again.end("time budget", "time budget reached")
    over = stored_progress(store.meta(), store.game_count(), wall.now + 600)
    assert over is not None and over.state == "finished" and over.reason == "time budget"
    assert over.elapsed_s == pytest.approx(55.0), "a finished league's clock stops"
    store.close()


def test_a_run_that_stopped_without_a_word_is_not_shown_running(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "r.sqlite", league="x", fingerprint="f", config_text="", resume=False)
    wall = Clock(1_000_000.0)
    run = RunClock(store, Plan(games=10), wall=wall)
    run.start()
    assert stored_progress(store.meta(), 0, wall.now + 1).state == "starting"  # type: ignore[union-attr]
    stale = stored_progress(store.meta(), 0, wall.now + STALE_S + 1)
    assert stale is not None and stale.state == "stopped" and stale.over
    store.close()


def test_the_eta_waits_for_the_rounds_after_the_first_and_then_uses_their_rate(tmp_path: Path) -> None:
    """Issue 41: early ETAs read ~53:59 against a 10-minute budget, extrapolated from round
    1, whose time is mostly the bots starting. Round 1 shows "estimating…"; from round 2 on
    the rate is that of the games since round 2 began, on the terminal and the site alike."""
    store = ResultsStore.open(tmp_path / "r.sqlite", league="class", fingerprint="f", config_text="", resume=False)
    clock, wall = Clock(100.0), Clock(1_000_000.0)
    run = RunClock(store, CLASS, clock=clock, wall=wall)
    run.start()
    run.round_begins(0)
    clock.now += 40.0  # the bots start: round 1's first game comes late
    wall.now += 40.0
    for number in range(60):
        store.save_game(game_record(f"g{number}", ["a", "b"], [1, 2], fixture=number))
        clock.now += 0.5
        wall.now += 0.5
    first = run.progress()
    assert first.eta_s is None and "ETA estimating… (budget 10:00)" in progress_parts(first)
    run.round_begins(60)
    store.set_meta("rounds_started", "2")
    run.rounds_started = 2
    for number in range(60, 90):
        store.save_game(game_record(f"g{number}", ["a", "b"], [1, 2], fixture=number))
        clock.now += 0.5
        wall.now += 0.5
    second = run.progress()
    assert second.eta_s is not None
    assert second.eta_s == pytest.approx((second.planned - 90) / 2.0), "2 games a second since round 2 began"  # type: ignore[operator]
    assert second.rounds == 18, "round 2 ends at 100 s; 16 more rounds of 30 s end within 10 minutes"
    run.save()  # the heartbeat, as every few seconds
    theirs = stored_progress(store.meta(), store.game_count(), wall.now)
    assert theirs is not None and theirs.eta_s == pytest.approx(second.eta_s)
    store.close()


def test_one_play_time_from_the_command_to_the_last_game(tmp_path: Path) -> None:
    """Issue 41: three play times for one league (the web's elapsed, the stop line's, the
    wall clock). The clock starts when the command starts (the bots' start-up counts) and
    stops with the last game; the terminal and the site read the same number after it."""
    store = ResultsStore.open(tmp_path / "r.sqlite", league="class", fingerprint="f", config_text="", resume=False)
    clock, wall = Clock(100.0), Clock(1_000_000.0)
    command = clock.now
    clock.now += 25.0  # the bots are checked before the league's clock is made
    wall.now += 25.0
    run = RunClock(store, Plan(games=10), clock=clock, wall=wall)
    run.start(at=command)
    assert run.progress().elapsed_s == pytest.approx(25.0)
    clock.now += 35.0
    wall.now += 35.0
    run.end("schedule done", "all 10 games of the schedule played")
    clock.now += 20.0  # the bots stop, the standings are written
    wall.now += 20.0
    mine = run.progress()
    theirs = stored_progress(store.meta(), store.game_count(), wall.now)
    assert mine.elapsed_s == pytest.approx(60.0) and theirs is not None and theirs.elapsed_s == pytest.approx(60.0)
    store.close()
