"""Timeouts judged on evidence (docs/design.md §5, "A loaded machine"): the pure
judgement (table-driven), the match asking a decision again, and the probes that gather
the evidence (the referee's heartbeat, a bot's CPU and run-queue clocks)."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import MAX_ASKS, Evidence, TimeControl
from referee.game.views import Event
from referee.league.lateness import Heartbeat
from referee.league.match import MatchResult, play_match
from referee.sandbox.cputime import TaskClock
from referee.transport.replies import DecisionAsk, Reply

CONTROL = TimeControl(move_ms=1000, grace_ms=100)
MACHINE = Evidence(referee_late_ms=900.0, bot_wait_ms=100.0, bot_cpu_ms=2.0)  # 1,000 ms were the machine's
SLEEPER = Evidence(referee_late_ms=5.0, bot_wait_ms=3.0, bot_cpu_ms=1.0)  # the bot slept: nothing to excuse
BUSY = Evidence(referee_late_ms=0.0, bot_wait_ms=900.0, bot_cpu_ms=1000.0)  # it used its time: no excuse


@pytest.mark.parametrize(
    ("elapsed", "fault", "evidence", "last", "verdict", "charged"),
    [
        (700.0, None, None, True, "in time", 700.0),
        (1050.0, None, MACHINE, True, "in time", 1050.0),  # within move + grace: nothing to judge
        (1900.0, None, None, True, "timeout", 1900.0),  # late, no evidence: as before
        (1900.0, None, MACHINE, True, "excused", 900.0),  # an answer in hand, in time on the bot's own time
        (1900.0, None, SLEEPER, True, "timeout", 1900.0),
        (2200.0, None, BUSY, True, "timeout", 2200.0),  # used a whole move of CPU: its own time
        (1100.0, "timeout", MACHINE, False, "ask again", 100.0),  # no answer, and the bot got 100 ms of its 1,000
        (1100.0, "timeout", MACHINE, True, "timeout", 1100.0),  # ... but the last ask is charged
        (1100.0, "timeout", SLEEPER, False, "timeout", 1100.0),  # it had its time: a sleeper times out at once
        (1100.0, "timeout", BUSY, False, "timeout", 1100.0),
        (1100.0, "timeout", None, False, "timeout", 1100.0),
    ],
)
def test_a_late_answer_is_charged_only_the_time_that_was_the_bots(
    elapsed: float, fault: str | None, evidence: Evidence | None, last: bool, verdict: str, charged: float
) -> None:
    clock = CONTROL.clock()
    assert clock.judge(elapsed, fault, evidence, last_ask=last) == (verdict, charged)
    assert clock.bank_left_ms == 0


def test_an_excused_overrun_is_paid_from_the_bank_by_the_bots_own_time() -> None:
    clock = TimeControl(move_ms=1000, grace_ms=100, bank_ms=500).clock()
    assert clock.judge(2500.0, None, Evidence(referee_late_ms=1200.0), last_ask=True) == ("excused", 1300.0)
    assert clock.bank_left_ms == 300  # 1,300 - 1,100 from the bank
    assert clock.judge(1500.0, "timeout", SLEEPER, last_ask=False) == ("timeout", 1500.0)
    assert clock.bank_left_ms == 0


def test_without_limits_nothing_is_late() -> None:
    clock = TimeControl(unlimited=True).clock()
    assert clock.judge(1e9, None, None) == ("in time", 1e9)


@dataclass
class Scripted:
    """A match Player whose answers come from a script: ``late`` the asks of its second
    decision that get no answer, each with the given evidence; every other ask is answered
    at once."""

    name: str
    late: list[Evidence] = field(default_factory=list)
    asked: list[tuple[int, tuple[Event, ...], int]] = field(default_factory=list)  # decision, events, time_left

    def decide(self, asked: DecisionAsk) -> Reply:
        self.asked.append((asked.number, tuple(asked.events), asked.time_left_ms))
        numbers = list(dict.fromkeys(number for number, _, _ in self.asked))
        ask = sum(1 for number, _, _ in self.asked if number == asked.number) - 1
        if len(numbers) == 2 and ask < len(self.late):
            evidence = self.late[ask]
            return Reply(None, "timeout", "deadline of 300 ms exceeded", None, "DEADLINE_EXCEEDED", 320.0, evidence=evidence)
        return Reply(asked.view.legal[0], None, "", None, str(asked.view.legal[0]), 1.0)

    def second_decision(self) -> list[tuple[int, tuple[Event, ...], int]]:
        numbers = list(dict.fromkeys(number for number, _, _ in self.asked))
        return [asked for asked in self.asked if asked[0] == numbers[1]]

    def exit_detail(self) -> str | None:
        return None


def play(bot: Scripted) -> MatchResult:
    game = Game(2, Rules(start_hand_size=3), seed=3, game_id="ask-1", first_dealer=0)
    return play_match(game, [bot, Scripted("other")], TimeControl(move_ms=200, grace_ms=100), FaultPolicy(max_faults=10))


STALLED = Evidence(referee_late_ms=280.0, bot_wait_ms=0.0, bot_cpu_ms=0.5)  # of the 320 ms of an ask


def test_a_decision_the_machine_held_up_is_asked_again_with_the_same_number_and_events() -> None:
    bot = Scripted("bot", late=[STALLED, STALLED])
    result = play(bot)
    assert not result.faults
    asks = bot.second_decision()
    assert len(asks) == 3
    assert asks[0][1] == asks[1][1] == asks[2][1], "the same events, each time"
    assert {left for _, _, left in asks} == {200}, "a fresh deadline each time"
    (overload,) = result.overloads
    assert (overload.seat, overload.decision, overload.asks, overload.excused_ms) == (0, asks[0][0], 3, (280.0, 280.0, 0.0))
    assert "referee overloaded" in overload.detail and "asked 3 times" in overload.detail


def test_a_decision_held_up_every_time_is_charged_at_the_last_ask_and_says_so() -> None:
    bot = Scripted("bot", late=[STALLED] * (MAX_ASKS + 1))
    result = play(bot)
    (fault,) = result.faults
    assert (fault.kind, fault.decision) == ("timeout", bot.second_decision()[0][0])
    assert f"asked {MAX_ASKS} times" in fault.detail and "the machine" in fault.detail
    assert len(bot.second_decision()) == MAX_ASKS
    assert not result.overloads


def test_a_sleeper_is_not_asked_again() -> None:
    bot = Scripted("bot", late=[SLEEPER] * 3)
    result = play(bot)
    assert [(f.kind, f.decision) for f in result.faults] == [("timeout", bot.second_decision()[0][0])]
    assert len(bot.second_decision()) == 1


def test_the_heartbeat_sees_the_referee_stalled() -> None:
    beat = Heartbeat()  # not started: only the stall noted here (a busy test machine has its own)
    began = time.monotonic()
    beat.note(began - 0.2, began + 0.3)  # what a stopped referee looks like to it
    assert beat.late_ms(began, began + 1.0) == pytest.approx(300.0)
    assert beat.late_ms(began - 1.0, began - 0.5) == 0.0
    assert beat.late_fraction(1.0, now=began + 0.5) == pytest.approx(0.5)


def test_the_heartbeat_waits_for_its_next_beat_before_answering() -> None:
    beat = Heartbeat(tick_s=0.02).start()
    time.sleep(0.05)
    ended = time.monotonic()
    beat.late_ms(ended - 0.01, ended)  # returns once the heartbeat woke after `ended`
    assert beat._last_woke >= ended


def test_a_bots_cpu_time_and_its_children_are_counted() -> None:
    spin = "import time; end = time.monotonic() + 0.3\nwhile time.monotonic() < end: pass\ntime.sleep(30)"
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {spin!r}]); time.sleep(30)"])
    try:
        deadline = time.monotonic() + 30
        clock = TaskClock(parent.pid)
        while clock.tasks < 2 and time.monotonic() < deadline:  # the child has started
            time.sleep(0.02)
            clock.refresh()
        before = clock.sample()
        time.sleep(1.0)
        cpu, wait = TaskClock.used(before, clock.sample())
        assert cpu > 50, "the child's spin is counted"
        assert wait >= 0
        clock.close()
        assert clock.tasks == 0
    finally:
        parent.kill()
        subprocess.run(["pkill", "-KILL", "-P", str(parent.pid)], check=False)


def test_the_summary_line_names_the_machine_and_each_bot() -> None:
    from referee.report.faults import overload_line

    assert overload_line({}) is None
    line = overload_line({"random": (3, 2), "heuristic": (1, 0)})
    assert line is not None and line.startswith("referee overloaded: 4 late answers were the machine's")
    assert "random 3, heuristic 1; 2 asked again" in line
