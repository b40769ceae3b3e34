"""check-bot and a league settle a late reply by the same rule on the same evidence
(docs/design.md §5): a bot is never on time in check-bot and late in a league, or the
other way round. One scripted bot, every answer of it late by the referee's clock with
the same evidence, through check-bot's scripted situations and through a league's game."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import pytest
import trio

from referee.checkbot.checks import CheckResult, _check_situations, branches_result
from referee.checkbot.situations import build_situations
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import Evidence, TimeControl
from referee.league.match import play_match
from referee.transport.replies import DecisionAsk, Reply

TIME = TimeControl(move_ms=1000, grace_ms=100)
WALL_MS = 1900.0  # 800 ms past the limit by the referee's clock


@dataclass
class LateBot:
    """Answers every ask with its first legal action, ``WALL_MS`` after it was asked by the
    referee's clock, with ``evidence`` of what held it up; as a league's lease and as
    check-bot's."""

    evidence: Evidence
    name: str = "late"
    process: None = None
    asks: list[int] = field(default_factory=list)

    @property
    def client(self) -> Client:
        return Client(self)

    def decide(self, ask: DecisionAsk) -> Reply:
        self.asks.append(ask.number)
        return Reply(ask.view.legal[0], None, "", None, str(ask.view.legal[0]), WALL_MS, evidence=self.evidence)

    def exit_detail(self) -> str | None:
        return None


@dataclass
class Client:
    """The bot's client as check-bot may reach it: the same late answers."""

    bot: LateBot

    async def decide(self, ask: DecisionAsk) -> Reply:
        return self.bot.decide(ask)

    def end_play(self, game_id: str, seat: int) -> None:
        pass


class OnTime:
    name = "other"

    def decide(self, ask: DecisionAsk) -> Reply:
        return Reply(ask.view.legal[0], None, "", None, str(ask.view.legal[0]), 1.0)

    def exit_detail(self) -> str | None:
        return None


def checked(bot: LateBot) -> list[CheckResult]:
    results: list[CheckResult] = []
    coverage = build_situations()
    check = partial(_check_situations, None, None, bot, coverage.situations, TIME, results.append, branches=branches_result(coverage))
    trio.run(check)  # pool and entry only restart a bot that crashed: this one never does
    return [result for result in results if result.key not in ("on-time", "branches")]


def league_faults(bot: LateBot) -> list[str]:
    game = Game(2, Rules(start_hand_size=3), seed=4, game_id="same-1", first_dealer=0)
    result = play_match(game, [bot, OnTime()], TIME, FaultPolicy(max_faults=10))
    return [fault.kind for fault in result.faults if fault.bot == bot.name]


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        (Evidence(unread_ms=1000.0, bot_cpu_ms=2.0), "excused"),  # 900 ms of its own: in time
        (Evidence(unread_ms=10.0, starved_ms=5.0, bot_cpu_ms=2.0), "timeout"),  # 1,885 ms of its own: late
    ],
    ids=["the machine's", "the bot's own"],
)
def test_check_bot_and_a_league_give_the_same_verdict_for_the_same_late_reply(evidence: Evidence, verdict: str) -> None:
    in_check = checked(LateBot(evidence))
    in_league = league_faults(LateBot(evidence))
    assert in_check and in_league or verdict == "excused"
    if verdict == "excused":
        assert all(result.passed for result in in_check), [r.summary for r in in_check if not r.passed]
        assert in_league == []
    else:
        assert all(result.summary.startswith("timeout:") for result in in_check), [r.summary for r in in_check]
        assert in_league and set(in_league) == {"timeout"}
        assert "machine" not in " ".join(result.summary for result in in_check)
