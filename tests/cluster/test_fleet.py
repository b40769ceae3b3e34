"""Which worker plays which game (referee.cluster.fleet), without Dask: steering by what each
worker's check found, and games held back while the games in flight could still withdraw
one of their bots."""

from __future__ import annotations

import pytest

from referee.cluster.fleet import Fleet
from referee.cluster.worker import BotCheck, WorkerReport
from referee.league.counts import LeagueCounts
from referee.schedule.fixture import Fixture
from referee.schedule.make import make_fixtures

BOTS = ["a", "b", "c", "d", "e"]
OK = BotCheck(True)


def report(**failed: BotCheck) -> WorkerReport:
    return WorkerReport("bwrap", bots={bot: failed.get(bot, OK) for bot in BOTS})


def games() -> dict[str, Fixture]:
    return {fixture.game_id: fixture for fixture in make_fixtures(BOTS, 4, 1, 1)}


@pytest.mark.parametrize(
    ("w1", "w2", "refused_on_w1", "refused_on_w2"),
    [
        (report(), report(), set(), set()),
        (report(a=BotCheck(False, host=True, why="no node")), report(), {"a"}, set()),  # the worker's trouble
        (report(a=BotCheck(False, why="crashed")), report(), {"a"}, set()),  # starts elsewhere: w1's trouble
        (report(a=BotCheck(False, why="crashed")), report(a=BotCheck(False, why="crashed")), set(), set()),  # broken bot
    ],
    ids=["all start", "host failure", "fails only here", "fails everywhere on its own"],
)
def test_a_bot_goes_only_where_it_can_run(w1: WorkerReport, w2: WorkerReport, refused_on_w1: set[str], refused_on_w2: set[str]) -> None:
    fleet = Fleet(BOTS)
    fleet.join("w1", 2)
    fleet.join("w2", 2)
    lines = fleet.checked("w1", w1)
    if not w1.bots["a"].started:
        assert "a" in fleet.workers["w1"].refused  # held back while another check is out
    assert not any("cannot run there" in line for line in lines)  # said once every check is in
    lines += fleet.checked("w2", w2)
    assert set(fleet.workers["w1"].refused) == refused_on_w1
    assert set(fleet.workers["w2"].refused) == refused_on_w2
    assert sum("cannot run there" in line for line in lines) == len(refused_on_w1) + len(refused_on_w2)
    assert fleet.stuck(set(BOTS)) is None
    pick = fleet.pick(fleet.workers["w1"], games(), LeagueCounts(3))
    assert pick is not None and not set(pick.seats) & refused_on_w1


def test_a_bot_no_worker_can_run_stops_the_league_with_one_line() -> None:
    fleet = Fleet(BOTS)
    fleet.join("w1", 1)
    assert fleet.stuck({"a"}) is None  # still checking: wait
    fleet.checked("w1", report(a=BotCheck(False, host=True, why="no node")))
    assert fleet.stuck({"b"}) is None
    assert fleet.stuck({"a", "b"}) == "no worker can run bot 'a': worker w1: no node"
    fleet.join("w2", 1)
    fleet.checked("w2", WorkerReport(None, unfit="bubblewrap is not installed"))
    assert fleet.stuck({"a"}) == "no worker can run bot 'a': worker w1: no node; worker w2: bubblewrap is not installed"
    assert Fleet(BOTS).stuck({"a"}) is None  # no worker yet: wait


def test_a_game_waits_while_the_games_in_flight_could_withdraw_its_bot() -> None:
    """max_restarts = 1: after one restart spent and one game in flight with the bot, a
    third game with it waits; once the game in flight crashed it goes, the bot withdrawn."""
    fleet = Fleet(BOTS)
    fleet.join("w1", 5)
    fleet.checked("w1", report())
    counts = LeagueCounts(1, {"a": 1})
    waiting = games()
    worker = fleet.workers["w1"]
    first = fleet.pick(worker, waiting, counts)
    assert first is not None and "a" in first.seats
    fleet.send(worker, first, counts.withdrawn())
    del waiting[first.game_id]
    second = fleet.pick(worker, waiting, counts)
    assert second is not None and "a" not in second.seats  # a's games wait; the one without a goes
    fleet.send(worker, second, counts.withdrawn())
    del waiting[second.game_id]
    assert fleet.pick(worker, waiting, counts) is None
    fleet.back("w1", first.game_id)
    counts.count_failure("a")  # it crashed: withdrawn
    third = fleet.pick(worker, waiting, counts)
    assert third is not None and "a" in third.seats and counts.is_withdrawn("a")


def test_a_lost_worker_gives_back_its_games_and_their_risk() -> None:
    fleet = Fleet(BOTS)
    fleet.join("w1", 2)
    fleet.checked("w1", report())
    waiting = games()
    fixture = next(iter(waiting.values()))
    fleet.send(fleet.workers["w1"], fixture, frozenset())
    assert fleet.risky[fixture.seats[0]] == 1
    assert fleet.leave("w1") == [fixture]
    assert all(count == 0 for count in fleet.risky.values())


UNFIT = WorkerReport(None, unfit="bubblewrap is not installed")


@pytest.mark.parametrize(
    ("history", "outage"),
    [
        (["join bad", "check bad"], False),  # never could: a set-up to fix, the league stops
        (["join good", "check good", "join bad", "check bad", "leave good"], True),  # the able one left: wait
        (["join good", "check good", "leave good"], True),  # nobody left at all: wait
        (["join good", "check good", "leave good", "join bad", "check bad"], True),  # a bad one joined meanwhile: still wait
    ],
    ids=["never could", "able worker left", "every worker left", "bad worker joined during an outage"],
)
def test_an_outage_is_told_from_a_set_up_that_never_could_play(history: list[str], outage: bool) -> None:
    fleet = Fleet(BOTS)
    for step in history:
        action, name = step.split()
        if action == "join":
            fleet.join(name, 1)
        elif action == "check":
            fleet.checked(name, UNFIT if name == "bad" else report())
        else:
            fleet.leave(name)
    stuck = fleet.stuck(set(BOTS))
    assert (stuck is not None) == bool(fleet.workers)
    assert fleet.outage(set(BOTS)) is outage


def test_a_bot_whose_only_able_worker_left_waits_for_one() -> None:
    """Bot a starts only on w1 (w2's copy of it differs); w1 leaves: an outage for a."""
    fleet = Fleet(BOTS)
    fleet.join("w1", 1)
    fleet.join("w2", 1)
    fleet.checked("w1", report())
    fleet.checked("w2", report(a=BotCheck(False, host=True, why="its folder differs")))
    fleet.leave("w1")
    assert fleet.stuck(set(BOTS)) is not None and "bot 'a'" in fleet.stuck(set(BOTS))  # type: ignore[operator]
    assert fleet.outage(set(BOTS))
