"""Timeouts judged on evidence (docs/design.md §5, "A loaded machine"): the one rule
(:meth:`SeatClock.judge`), a test per row of the design's table; the match asking a
decision again and what it records and says; the league owning its record of decisions
held up."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.records import OverloadRecord
from referee.game.rules import Rules
from referee.game.timecontrol import MAX_ASKS, Evidence, TimeControl
from referee.game.views import Event
from referee.league.lateness import HeldUp
from referee.league.match import MatchResult, play_match
from referee.transport.replies import DecisionAsk, Reply

CONTROL = TimeControl(move_ms=1000, grace_ms=100)  # limit 1,100 ms; the bot is told 1,000 ms
MACHINE = Evidence(unread_ms=900.0, starved_ms=100.0, bot_cpu_ms=2.0)  # 1,000 ms the machine's
SLEEPER = Evidence(unread_ms=5.0, starved_ms=3.0, bot_cpu_ms=1.0)  # asleep: its own time, 8 ms of the machine's
OWN_TASKS = Evidence(starved_ms=0.0, bot_cpu_ms=2000.0)  # its tasks kept each other waiting: none of it the machine's
PART = Evidence(unsent_ms=200.0, unread_ms=100.0)  # the referee late at both ends: 300 ms

# The table of docs/design.md §5 ("A loaded machine"): one row each.
# (row, wall ms, the transport's fault, evidence, last ask, verdict, charged ms, bank left)
ROWS = [
    ("answered within the limit", 700.0, None, None, True, "in time", 700.0, 0),
    ("answered within the limit, evidence or not", 1050.0, None, MACHINE, True, "in time", 1050.0, 0),
    ("late, no evidence", 1900.0, None, None, True, "timeout", 1900.0, 0),
    ("late, its own time within the limit", 1900.0, None, MACHINE, True, "excused", 900.0, 0),
    ("late, its own time over the limit", 1900.0, None, PART, True, "timeout", 1600.0, 0),
    ("late, asleep or busy with its own work", 1900.0, None, SLEEPER, True, "timeout", 1892.0, 0),
    ("late, its own tasks waiting behind each other", 2200.0, None, OWN_TASKS, True, "timeout", 2200.0, 0),
    ("late and malformed: an answer in hand", 1900.0, "malformed", SLEEPER, True, "timeout", 1892.0, 0),
    ("no answer, kept from the time it was told", 1100.0, "timeout", MACHINE, False, "ask again", 100.0, 0),
    ("no answer, kept from its time, the last ask", 1100.0, "timeout", MACHINE, True, "timeout", 100.0, 0),
    ("no answer, the machine's share within the grace", 1100.0, "timeout", SLEEPER, False, "timeout", 1092.0, 0),
    ("no answer, its own tasks", 1100.0, "timeout", OWN_TASKS, False, "timeout", 1100.0, 0),
    ("no answer, no evidence", 1100.0, "timeout", None, False, "timeout", 1100.0, 0),
    ("no answer, never received", 1100.0, "timeout", Evidence(unsent_ms=1100.0, received=False), False, "ask again", 0.0, 0),
]


@pytest.mark.parametrize(("row", "wall", "fault", "evidence", "last", "verdict", "charged", "bank"), ROWS, ids=[row[0] for row in ROWS])
def test_each_row_of_the_table(
    row: str, wall: float, fault: str | None, evidence: Evidence | None, last: bool, verdict: str, charged: float, bank: int
) -> None:
    clock = CONTROL.clock()
    judged = clock.judge(wall, fault, evidence, last_ask=last)
    assert (judged.verdict, judged.charged_ms) == (verdict, charged), row
    assert clock.bank_left_ms == bank
    assert judged.machine_ms <= wall, "the machine's share never exceeds the decision's wall time"


def test_the_bank_pays_the_charged_overrun_of_an_excused_answer_and_an_ask_again_spends_nothing() -> None:
    clock = TimeControl(move_ms=1000, grace_ms=100, bank_ms=500).clock()
    assert clock.judge(2500.0, None, Evidence(unread_ms=1200.0)).verdict == "excused"
    assert clock.bank_left_ms == 300  # 1,300 charged: 200 over move + grace, from the bank
    assert clock.judge(1400.0, "timeout", MACHINE, last_ask=False).verdict == "ask again"
    assert clock.bank_left_ms == 300
    assert clock.judge(1500.0, "timeout", SLEEPER, last_ask=False).verdict == "timeout"
    assert clock.bank_left_ms == 0


def test_without_limits_nothing_is_late() -> None:
    clock = TimeControl(unlimited=True).clock()
    assert clock.judge(1e9, None, None).verdict == "in time"


def test_the_machines_share_never_exceeds_the_wall_time() -> None:
    assert Evidence(unsent_ms=800.0, unread_ms=800.0, starved_ms=800.0).machine_ms(1000.0) == 1000.0


@dataclass
class Scripted:
    """A match Player whose answers come from a script: ``late`` the asks of its second
    decision that get no answer, each with the given evidence; every other ask is answered
    at once."""

    name: str
    late: list[Evidence] = field(default_factory=list)
    asked: list[tuple[int, tuple[Event, ...], int]] = field(default_factory=list)  # decision, events, time_left
    deadlines: list[float | None] = field(default_factory=list)

    def decide(self, asked: DecisionAsk) -> Reply:
        self.asked.append((asked.number, tuple(asked.events), asked.time_left_ms))
        self.deadlines.append(asked.deadline_s)
        numbers = list(dict.fromkeys(number for number, _, _ in self.asked))
        ask = sum(1 for number, _, _ in self.asked if number == asked.number) - 1
        if len(numbers) == 2 and ask < len(self.late):
            evidence = self.late[ask]
            return Reply(None, "timeout", "deadline of 300 ms exceeded", None, "DEADLINE_EXCEEDED: Deadline Exceeded", 320.0, evidence=evidence)
        return Reply(asked.view.legal[0], None, "", None, str(asked.view.legal[0]), 1.0)

    def second_decision(self) -> list[tuple[int, tuple[Event, ...], int]]:
        numbers = list(dict.fromkeys(number for number, _, _ in self.asked))
        return [asked for asked in self.asked if asked[0] == numbers[1]]

    def exit_detail(self) -> str | None:
        return None


def play(bot: Scripted, held: HeldUp | None = None) -> MatchResult:
    game = Game(2, Rules(start_hand_size=3), seed=3, game_id="ask-1", first_dealer=0)
    return play_match(game, [bot, Scripted("other")], TimeControl(move_ms=200, grace_ms=100), FaultPolicy(max_faults=10), held=held)


STALLED = Evidence(unread_ms=280.0, bot_cpu_ms=0.5)  # of the 320 ms of an ask: the bot got 40 ms of the 200 it was told
OWN = Evidence(unread_ms=20.0, bot_cpu_ms=0.5)  # the bot had its time
UNSENT = Evidence(unsent_ms=320.0, received=False)  # the referee stalled through the ask: never sent


def test_a_decision_the_machine_held_up_is_asked_again_with_the_same_number_and_events() -> None:
    bot = Scripted("bot", late=[STALLED, STALLED])
    result = play(bot)
    assert not result.faults
    asks = bot.second_decision()
    assert len(asks) == 3
    assert asks[0][1] == asks[1][1] == asks[2][1], "the same events, each time"
    assert {left for _, _, left in asks} == {200}, "the same time told each time"
    first = bot.asked.index(asks[0])
    assert bot.deadlines[first : first + 3] == pytest.approx([0.3, 0.6, 0.9]), "a fresh deadline, one limit longer each time"
    (overload,) = result.overloads
    assert (overload.seat, overload.decision, overload.asks, overload.excused_ms) == (0, asks[0][0], 3, (280.0, 280.0, 0.0))
    assert not overload.timed_out
    assert "referee overloaded" in overload.detail and "asked 3 times (the referee asks a decision again" in overload.detail


def test_a_decision_held_up_every_time_is_charged_at_the_last_ask_listed_and_says_so() -> None:
    bot = Scripted("bot", late=[STALLED] * (MAX_ASKS + 1))
    result = play(bot)
    (fault,) = result.faults
    assert (fault.kind, fault.decision) == ("timeout", bot.second_decision()[0][0])
    assert f"asked {MAX_ASKS} times" in fault.detail and "this may be the machine's fault" in fault.detail
    assert len(bot.second_decision()) == MAX_ASKS
    (overload,) = result.overloads  # listed with the others (it was missing: issue 34)
    assert overload.timed_out and overload.asks == MAX_ASKS and "still charged a timeout" in overload.detail


def test_a_timeout_after_asks_held_up_names_the_machine_only_when_the_last_ask_was_held_up_too() -> None:
    bot = Scripted("bot", late=[STALLED, OWN])  # asked again once, then the bot had its time and did not answer
    result = play(bot)
    (fault,) = result.faults
    assert fault.kind == "timeout" and "asked 2 times" in fault.detail
    assert "may be the machine's fault" not in fault.detail, fault.detail
    assert "the bot had its time on the last" in fault.detail
    (overload,) = result.overloads
    assert overload.timed_out and overload.asks == 2


def test_a_sleeper_is_not_asked_again_and_nothing_it_is_told_suggests_the_machine() -> None:
    bot = Scripted("bot", late=[OWN] * 3)
    result = play(bot)
    assert [(f.kind, f.decision) for f in result.faults] == [("timeout", bot.second_decision()[0][0])]
    assert len(bot.second_decision()) == 1
    assert "machine" not in result.faults[0].detail
    assert not result.overloads


def test_an_ask_the_bot_never_received_is_not_counted() -> None:
    bot = Scripted("bot", late=[UNSENT, STALLED, UNSENT])
    result = play(bot)
    assert not result.faults
    assert len(bot.second_decision()) == 4, "asked four times, received twice"
    (overload,) = result.overloads
    assert overload.asks == 2 and overload.ms == (320.0, 1.0)
    assert "asked 2 times" in overload.detail


def test_the_league_owns_its_record_of_decisions_held_up() -> None:
    mine, other = HeldUp(), HeldUp()
    play(Scripted("bot", late=[STALLED, STALLED]), held=mine)
    assert mine.since(0.0) == 2 and other.since(0.0) == 0, "each ask held up noted where the league keeps it, and nowhere else"
    play(Scripted("bot", late=[STALLED]))  # a game with no league: notes nowhere
    assert mine.since(0.0) == 2
    import referee.league.lateness as lateness

    assert not hasattr(lateness, "held_up"), "no module global"


def test_the_overload_record_reads_back_as_written() -> None:
    from referee.game.records import GameRecord

    record = OverloadRecord(0, "bot", 4, 2, (320.0, 1.0), (280.0, 0.0), 1.0, timed_out=True)
    data = {"overloads": [dict(record.__dict__)]}
    assert GameRecord.from_json({**_minimal_record(), **data}).overloads == [record]
    old = {k: v for k, v in record.__dict__.items() if k != "timed_out"}  # a record written before the field
    assert not GameRecord.from_json({**_minimal_record(), "overloads": [old]}).overloads[0].timed_out


def _minimal_record() -> dict[str, object]:
    return {
        "game_id": "g", "league": "l", "fixture": 0, "table": ["a", "b"], "deal": 0, "rotation": 0, "seats": ["a", "b"],
        "rules": {}, "seed": 1, "first_dealer": 0, "decks": [], "actions": [], "rounds": [], "faults": [], "placements": [0, 1],
        "winner": 0, "knocked_out_round": [None, 1], "forfeited": [False, False], "withdrawn": [False, False],
    }  # fmt: skip


def test_the_summary_line_names_the_machine_and_each_bot_and_says_what_asked_again_means() -> None:
    from referee.report.faults import overload_line

    assert overload_line({}) is None
    line = overload_line({"random": (3, 2), "heuristic": (1, 0)})
    assert line is not None and line.startswith("referee overloaded: the machine, not the bot, held up 4 decisions")
    assert "(random 3, heuristic 1); 2 were asked again (with a fresh deadline, at most 4 times)" in line
