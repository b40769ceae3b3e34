"""The Go sample bot (sample_bots/go, built by `make bots` from Debian's Go packages) over
real gRPC: it passes every check of `referee check-bot` in the sandbox, plays whole games
against the other samples without a fault, plays a dog's card only when it takes the
trick, and exits cleanly on SIGTERM."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import trio

import referee
from referee.botkit.helpers import beats, trick_winner
from referee.game.views import Pass, Play
from referee.transport.client import BotClient, DecisionAsk, Reply
from tests.conftest import run_referee
from tests.crosslang.helpers import GO_BOT, start_go
from tests.crosslang.test_sample_bots import dog_views, hello
from tests.transport.helpers import SAMPLES, BotLauncher
from tests.transport.test_client import connect, play_game_over_grpc

pytestmark = [pytest.mark.crosslang, pytest.mark.usefixtures("needs_go")]


@pytest.mark.timeout(600)
def test_the_go_bot_passes_check_bot(short_tmp: Path) -> None:
    done = run_referee(
        "check-bot", "--logs", str(short_tmp / "logs"), "--startup-ms", "30000", "--move-ms", "5000", "--games", "4", "--", str(GO_BOT)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks passed" in done.stdout and "FAIL" not in done.stdout
    assert "as 'go-sample'" in done.stdout


def test_the_go_bot_plays_whole_games_without_a_fault(bots: BotLauncher) -> None:
    started = [start_go(bots), bots.start(SAMPLES / "heuristic_bot.py")]

    async def hello_all() -> list[BotClient]:
        return [(await connect(bot))[0] for bot in started]

    go, heuristic = trio.run(hello_all)
    try:
        tables = [[go, heuristic], [heuristic, go, heuristic], [go, go, heuristic, go]]
        games = [play_game_over_grpc(table, seed=seed) for seed, table in enumerate(tables, start=1)]
    finally:
        go.close()
        heuristic.close()
    assert all(len(actions) > 10 for actions in games)
    assert started[0].process.poll() is None, started[0].output()


def test_a_go_dog_plays_only_on_a_trick_its_card_takes(bots: BotLauncher) -> None:
    bot = start_go(bots)
    views = dog_views(12)

    async def main() -> list[Reply]:
        client, _ = await connect(bot)
        try:
            return [await client.decide(DecisionAsk(view, [], number, 1000, 0, 10.0)) for number, view in enumerate(views)]
        finally:
            client.close()

    for view, reply in zip(views, trio.run(main), strict=True):
        assert reply.fault is None, reply
        winning = trick_winner(view.current_trick, view.trump)
        assert winning is not None
        takes = beats(view.hand[0], winning[1], view.trump)
        assert reply.action == (Play(view.hand[0]) if takes else Pass()), (view.hand, view.current_trick, view.trump)


def test_the_go_bot_says_hello_and_exits_cleanly_on_sigterm(bots: BotLauncher) -> None:
    bot = start_go(bots)
    info = hello(bot)
    assert (info.name, info.major, info.minor) == ("go-sample", referee.PROTOCOL_VERSION[0], 1)  # 1.1: Play
    bot.process.send_signal(signal.SIGTERM)
    assert bot.process.wait(timeout=60) == 0, bot.output()
