"""The sample search bot and what the kit tells it of its time (no timing assertions: the bot
is only checked to answer legally, in-process and as a real process over gRPC)."""

from __future__ import annotations

import importlib.util
import random
import time
from types import ModuleType

import pytest
import trio

from referee.botkit import Bot, Card, SeatView, TimeLeft
from referee.botkit.decide import decide
from referee.botkit.search import heuristic, policy_of
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Action, ChooseTrump, DecisionKind, Pass, Play
from referee.transport.client import BotClient, DecisionAsk
from referee.transport.codec import view_to_request
from tests.transport.conftest import bots  # noqa: F401 (the fixture: bot processes killed afterwards)
from tests.transport.helpers import HELLO_TIMEOUT_S, SAMPLES, BotLauncher


def load_search_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sample_search_bot", SAMPLES / "search_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Recorder(Bot):
    """Keeps the time it was told and plays its first legal card."""

    told: list[TimeLeft]

    def __init__(self) -> None:
        self.told = []

    def observe_time_left(self, view: SeatView, time_left: TimeLeft) -> None:
        self.told.append(time_left)

    def play(self, view: SeatView) -> Card | None:
        return next(action.card for action in view.legal if isinstance(action, Play))


def test_the_kit_tells_the_bot_its_time_left_from_the_request() -> None:
    game = Game(3, Rules(), seed=2, game_id="t")
    assert game.to_act is not None
    request = view_to_request(game.view(game.to_act), [], 0, time_left_ms=321, bank_left_ms=40)
    bot = Recorder()
    before = time.monotonic()
    decide(bot, request)
    decide(bot, request, received_s=12.5)
    assert bot.told[0].time_left_ms == 321 and bot.told[0].bank_left_ms == 40 and bot.told[0].received_s >= before
    assert bot.told[1] == TimeLeft(321, 40, 12.5)


def test_a_deadline_keeps_a_share_of_the_time_left() -> None:
    assert TimeLeft(1000, 0, 5.0).deadline_s(0.4, no_limit_ms=300) == pytest.approx(5.4)
    assert TimeLeft(0, 0, 5.0).deadline_s(0.4, no_limit_ms=300) == pytest.approx(5.3)  # no limit
    with pytest.raises(ValueError, match="share"):
        TimeLeft(1000, 0, 5.0).deadline_s(1.5, no_limit_ms=300)


VARIANTS = [
    Rules(),
    Rules(allow_no_trump=True, dog_life="any_round", first_lead="trump_chooser"),
    Rules(dog_play="first_trick", turn_up="bottom", start_hand_size=4),
    Rules(required_tricks="strict", trump_tiebreak="cut", dog_life="off"),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda rules: rules.summary())
def test_the_search_bot_plays_whole_games_legally(rules: Rules) -> None:
    """Two search bots, a heuristic and a random seat: every answer is legal, trump and the
    dog's choices too. Each decision gets 50 ms, so the bot searches a few deals each."""
    search_bot = load_search_bot().SearchBot()
    search = policy_of(search_bot)
    rng = random.Random(7)
    kinds: set[str] = set()
    for seed in range(2):
        game = Game(4, rules, seed, game_id=f"s{seed}")
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            action: Action
            if seat in (0, 2):
                search_bot.observe_time_left(view, TimeLeft(50, 0, time.monotonic()))
                action = search(view)
                kinds.add("trump" if isinstance(action, ChooseTrump) else "pass" if isinstance(action, Pass) else "card")
            else:
                action = heuristic(view) if seat == 1 else rng.choice(view.legal)
            assert action in view.legal, (seat, action, view.legal)
            game.apply(seat, action)
    assert "card" in kinds


def test_the_search_bot_answers_over_grpc(bots: BotLauncher) -> None:
    bot = bots.start(SAMPLES / "search_bot.py")
    game = Game(4, Rules(), seed=3, game_id="grpc-search")
    assert game.to_act is not None
    asks = []
    while len(asks) < 3:  # three decisions with a choice, the first of them naming no trump: round 1
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if len(view.legal) > 1 and view.decision is DecisionKind.PLAY:
            asks.append(view)
        game.apply(seat, heuristic(view))

    async def main() -> list[Action | None]:
        client = BotClient(bot.address, "search")
        try:
            info = await client.hello(HELLO_TIMEOUT_S)
            assert info.name == "search"
            answers = []
            for number, view in enumerate(asks):
                reply = await client.decide(DecisionAsk(view, [], number, 300, 0, 30.0))
                assert reply.fault is None, (reply, bot.output())
                answers.append(reply.action)
            return answers
        finally:
            client.close()

    answers = trio.run(main)
    assert all(answer in view.legal for answer, view in zip(answers, asks, strict=True))
