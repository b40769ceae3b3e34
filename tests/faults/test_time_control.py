"""The time control with real bot processes (docs/design.md §5): an answer just inside
``move_ms`` + ``grace_ms`` is no fault; an overrun within the bank is no fault and the
bank shrinks by the overrun (as the next request tells the bot); a timeout spends the
bank; a reply after the deadline is discarded and never confuses the next decision.

The bank tests drive :func:`referee.league.match.play_match` in-process so they can read what
each request told the bot; the others go through ``referee run``. Each runs on both paths:
the bots asked by unary ``Decide``, then on their ``Play`` streams (``path``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import trio

from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.league.match import MatchResult, play_match
from referee.league.pool import BotEntry, BotPool, Lease
from referee.sandbox import SandboxSettings, resolve_mode
from referee.transport.replies import DecisionAsk, Reply
from tests.conftest import on_path
from tests.faults.helpers import BOTS, RANDOM, STARTUP_MS, run_league


@dataclass
class Told:
    number: int
    time_left_ms: int
    bank_left_ms: int
    deadline_s: float | None
    reply: Reply


@dataclass
class Recorder:
    """A match Player that forwards to a pooled bot and keeps what each request told it."""

    lease: Lease
    told: list[Told] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.lease.name

    def decide(self, ask: DecisionAsk) -> Reply:
        reply = self.lease.decide(ask)
        self.told.append(Told(ask.number, ask.time_left_ms, ask.bank_left_ms, ask.deadline_s, reply))
        return reply

    def exit_detail(self) -> str | None:
        return self.lease.exit_detail()

    def firsts(self) -> list[Told]:
        """The first ask of each decision (on a busy machine a decision may be asked again:
        the same request, nothing spent)."""
        seen: set[int] = set()
        return [told for told in self.told if not (told.number in seen or seen.add(told.number))]


def play_recorded(tmp: Path, command: Sequence[str], time: TimeControl, path: str) -> tuple[MatchResult, Recorder]:
    """One 2-player game (3 cards in round 1) of the bot ``command`` against the random
    bot, both asked over ``path``."""
    mode, _ = resolve_mode(SandboxSettings())
    entries = (
        BotEntry("bot", tuple(on_path(list(command), path)), directory=BOTS),
        BotEntry("random", tuple(on_path(["python", str(RANDOM)], path)), directory=RANDOM.parent),
    )

    async def main() -> tuple[MatchResult, Recorder]:
        async with BotPool(entries, run_dir=tmp / "run", sandbox=SandboxSettings(mode=mode), time=time, max_restarts=0) as pool:  # type: ignore[arg-type]
            bot, other = await pool.acquire("bot"), await pool.acquire("random")
            assert isinstance(bot, Lease) and isinstance(other, Lease)
            assert bot.hello.streams is other.hello.streams is (path == "stream")
            recorder = Recorder(bot)
            game = Game(2, Rules(start_hand_size=3), seed=5, game_id="time-1", first_dealer=1)
            result = await trio.to_thread.run_sync(partial(play_match, game, [recorder, other], time, FaultPolicy(max_faults=10)))
            return result, recorder

    return trio.run(main)


def test_an_overrun_within_the_bank_is_no_fault_and_the_bank_shrinks_by_it(short_tmp: Path, path: str) -> None:
    time = TimeControl(move_ms=300, grace_ms=100, bank_ms=2000, startup_ms=STARTUP_MS)
    result, bot = play_recorded(short_tmp, ("python", str(BOTS / "bank_bot.py")), time, path)
    assert not result.faults, "an overrun paid by the bank is no fault; an unimplemented GameOver neither"
    first, second, *_ = bot.firsts()
    assert (first.time_left_ms, first.bank_left_ms) == (300, 2000)
    assert first.deadline_s == (300 + 100 + 2000) / 1000, "the gRPC deadline carries move + grace + bank"
    overrun = first.reply.ms - 300 - 100
    assert overrun > 0, "the bot slept its whole move time and half its bank"
    assert second.bank_left_ms == int(2000 - overrun), "the bank shrinks by the overrun"
    assert second.deadline_s is not None and abs(second.deadline_s - (400 + 2000 - overrun) / 1000) < 1e-9
    assert all(told.bank_left_ms == second.bank_left_ms for told in bot.firsts()[1:]), "answers on time cost the bank nothing"


def test_a_timeout_spends_the_whole_bank(short_tmp: Path, path: str) -> None:
    time = TimeControl(move_ms=200, grace_ms=100, bank_ms=500, startup_ms=STARTUP_MS)
    result, bot = play_recorded(short_tmp, ("python", str(BOTS / "timeout_bot.py"), "--sleep-ms", "3000"), time, path)
    mine = [fault for fault in result.faults if fault.bot == "bot"]
    assert mine and mine[0].kind == "timeout"
    first, *later = bot.firsts()
    assert first.bank_left_ms == 500
    assert all(told.bank_left_ms == 500 for told in bot.told if told.number == first.number), "an ask again spends nothing"
    assert [told.bank_left_ms for told in later] == [0] * len(later)
    assert all(told.deadline_s == 0.3 for told in later), "move + grace, the bank spent"


def test_an_answer_just_inside_move_plus_grace_is_no_fault(short_tmp: Path, path: str) -> None:
    records = run_league(
        short_tmp,
        {"slow": ["python", str(BOTS / "timeout_bot.py"), "--sleep-ms", "700"], "random": RANDOM},
        time="move_ms = 600\ngrace_ms = 600",
        faults='preset = "strict"',
        rules="start_hand_size = 2",
        path=path,
    )
    assert len(records) == 2
    for record in records:
        assert not record.faults
        slow = record.seats.index("slow")
        times = [action.ms for action in record.actions if action.seat == slow]
        assert times and all(ms is not None and ms >= 700 for ms in times), "every answer came after move_ms"


def test_a_reply_after_the_deadline_is_discarded_and_never_confuses_the_next_decision(short_tmp: Path, path: str) -> None:
    records = run_league(
        short_tmp,
        {"late": BOTS / "late_bot.py", "random": RANDOM},
        time="move_ms = 300\ngrace_ms = 100",
        faults='preset = "league"\nmax_faults = 3',
        rules="start_hand_size = 4",
        path=path,
    )
    assert len(records) == 2
    for record in records:
        seat = record.seats.index("late")
        mine = [(index, action) for index, action in enumerate(record.actions) if action.seat == seat]
        faults = [fault for fault in record.faults if fault.bot == "late"]
        assert [fault.kind for fault in faults] == ["timeout"], "one late reply, and nothing else goes wrong"
        late_index, late_action = mine[1]
        assert faults[0].decision == late_index and late_action.fault == "timeout"
        later = [action for _, action in mine[2:]]
        assert later, "the bot is asked again after its late reply"
        assert all(action.fault is None and action.ms is not None for action in later), "the next answers are its own"
