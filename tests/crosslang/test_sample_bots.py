"""The Node.js and C++ sample bots over real gRPC on Unix sockets, against the real engine
(docs/design.md §4): Hello, whole games with no fault, the dog's life, SIGTERM."""

from __future__ import annotations

import random
import shutil
import signal
from pathlib import Path

import pytest
import trio

import referee
from referee.botkit.helpers import beats, trick_winner
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Pass, Play, SeatView
from referee.transport.client import BotClient, DecisionAsk, HelloInfo, Reply
from tests.crosslang.helpers import PROTO, start_cpp, start_node
from tests.transport.helpers import SAMPLES, BotLauncher, RunningBot
from tests.transport.test_client import connect, play_game_over_grpc

pytestmark = pytest.mark.crosslang

STARTERS = {"node": start_node, "cpp": start_cpp}
NAMES = {"node": "node-sample", "cpp": "cpp-sample"}


def hello(bot: RunningBot) -> HelloInfo:
    async def main() -> HelloInfo:
        client, info = await connect(bot)
        client.close()
        return info

    return trio.run(main)


@pytest.mark.usefixtures("needs_node", "needs_cpp")
def test_node_and_cpp_bots_play_whole_games_without_a_fault(bots: BotLauncher) -> None:
    started = [start_node(bots), start_cpp(bots), bots.start(SAMPLES / "heuristic_bot.py")]

    async def hello_all() -> list[BotClient]:
        return [(await connect(bot))[0] for bot in started]

    node, cpp, heuristic = trio.run(hello_all)
    try:
        tables = [[node, cpp, heuristic], [cpp, heuristic, node], [heuristic, node, cpp], [node, cpp], [cpp, node, cpp, node]]
        games = [play_game_over_grpc(table, seed=seed) for seed, table in enumerate(tables, start=1)]
        again = play_game_over_grpc(tables[0], seed=1)
    finally:
        for client in (node, cpp, heuristic):
            client.close()
    assert again == games[0]  # both strategies are deterministic
    assert all(len(actions) > 10 for actions in games)
    for bot in started:
        assert bot.process.poll() is None, bot.output()


@pytest.mark.usefixtures("needs_node")
def test_node_bot_loads_the_proto_from_kwhist_proto(bots: BotLauncher, short_tmp: Path) -> None:
    copy = short_tmp / "copy" / "bot.proto"
    copy.parent.mkdir()
    shutil.copy(PROTO, copy)
    info = hello(start_node(bots, env={"KWHIST_PROTO": str(copy)}))
    assert (info.name, info.major, info.minor) == ("node-sample", 1, 1)


@pytest.mark.usefixtures("needs_node")
def test_node_bot_names_a_missing_proto(bots: BotLauncher) -> None:
    bot = start_node(bots, env={"KWHIST_PROTO": "/nonexistent/bot.proto"})
    assert bot.process.wait(timeout=60) == 2
    assert "KWHIST_PROTO=/nonexistent/bot.proto: no such file" in bot.output()


def dog_views(count: int) -> list[SeatView]:
    """``count`` views of a dog asked to play, not leading, from seeded random games of the engine."""
    views: list[SeatView] = []
    for seed in range(500):
        game = Game(4, Rules(), seed, game_id=f"dog-{seed}")
        rng = random.Random(seed)
        while not game.over and len(views) < count:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if Pass() in view.legal and trick_winner(view.current_trick, view.trump) is not None:
                views.append(view)
            game.apply(seat, rng.choice(view.legal))
        if len(views) >= count:
            return views
    raise AssertionError("no dog's life in 500 games")


@pytest.mark.parametrize("language", ["node", "cpp"])
def test_a_dog_plays_only_on_a_trick_its_card_takes(bots: BotLauncher, language: str, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue(f"needs_{language}")
    bot = STARTERS[language](bots)
    views = dog_views(12)

    async def main() -> list[Reply]:
        client, _ = await connect(bot)
        try:
            return [await client.decide(DecisionAsk(view, [], number, 1000, 0, 10.0)) for number, view in enumerate(views)]
        finally:
            client.close()

    replies = trio.run(main)
    for view, reply in zip(views, replies, strict=True):
        assert reply.fault is None, reply
        winning = trick_winner(view.current_trick, view.trump)
        assert winning is not None
        takes = beats(view.hand[0], winning[1], view.trump)
        assert reply.action == (Play(view.hand[0]) if takes else Pass()), (view.hand, view.current_trick, view.trump)
    assert {type(reply.action) for reply in replies} == {Play, Pass}, "both cases should occur"


@pytest.mark.parametrize("language", ["node", "cpp"])
def test_bot_says_hello_and_exits_cleanly_on_sigterm(bots: BotLauncher, language: str, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue(f"needs_{language}")
    bot = STARTERS[language](bots)
    info = hello(bot)
    assert (info.name, info.major, info.minor) == (NAMES[language], referee.PROTOCOL_VERSION[0], 1)  # 1.1: Play
    bot.process.send_signal(signal.SIGTERM)
    assert bot.process.wait(timeout=60) == 0, bot.output()
