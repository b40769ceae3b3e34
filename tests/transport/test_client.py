"""BotClient against real bot processes over real gRPC on Unix sockets (docs/design.md §4, §5).

No timing assertions: a sleeping bot is only checked to give fault "timeout". The faults
are checked on both paths (``path``): the bot asked by unary ``Decide``, then on its
``Play`` stream, where they must come out the same.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
import trio

import referee
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Action, DecisionKind, Play
from referee.transport import HelloError, ProtocolMismatch
from referee.transport.client import BotClient, DecisionAsk, HelloInfo, Reply
from tests.transport.helpers import BOTS, HELLO_TIMEOUT_S, SAMPLES, BotLauncher, RunningBot, hand_view

T = TypeVar("T")


def run(fn: Callable[[], Awaitable[T]]) -> T:
    return trio.run(fn)


async def connect(bot: RunningBot) -> tuple[BotClient, HelloInfo]:
    client = BotClient(bot.address, "test-bot")
    try:
        info = await client.hello(HELLO_TIMEOUT_S)
    except BaseException:
        client.close()
        raise AssertionError(f"no hello; bot output:\n{bot.output()}") from None
    return client, info


async def ask(bot: RunningBot, game_id: str, kind: DecisionKind = DecisionKind.PLAY, deadline_s: float | None = 10.0) -> Reply:
    client, _ = await connect(bot)
    try:
        return await client.decide(DecisionAsk(hand_view(kind, game_id=game_id), [], 3, 250, 0, deadline_s))
    finally:
        client.close()


# --- the sample bots ---------------------------------------------------------------


@pytest.mark.parametrize("script", ["random_bot.py", "heuristic_bot.py"])
def test_sample_bot_says_hello_and_answers_legally(bots: BotLauncher, script: str) -> None:
    bot = bots.start(SAMPLES / script)

    async def main() -> tuple[HelloInfo, Reply, Reply, str | None]:
        client, info = await connect(bot)
        try:
            play = await client.decide(DecisionAsk(hand_view(DecisionKind.PLAY), [], 0, 250, 0, 10.0))
            trump = await client.decide(DecisionAsk(hand_view(DecisionKind.CHOOSE_TRUMP), [], 1, 250, 0, 10.0))
            over = await client.game_over("g1", 1, [2, 1, 3], 1, 10.0)
            return info, play, trump, over
        finally:
            client.close()

    info, play, trump, over = run(main)
    assert info.name == script.removesuffix("_bot.py")
    assert (info.major, info.minor) == referee.PROTOCOL_VERSION
    assert play.fault is None and play.action in hand_view(DecisionKind.PLAY).legal, play
    assert trump.fault is None and trump.action in hand_view(DecisionKind.CHOOSE_TRUMP).legal, trump
    assert play.ms > 0 and play.answer == "KC"
    assert '"decision_number":0' in play.request_json
    assert over is None


def play_game_over_grpc(clients: list[BotClient], seed: int) -> list[Action]:
    """Play one whole game with the real engine, every decision over gRPC; return the actions."""

    async def main() -> list[Action]:
        game = Game(num_seats=len(clients), rules=Rules(allow_no_trump=True), seed=seed, game_id=f"grpc-{seed}")
        sent = [0] * len(clients)
        played: list[Action] = []
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            events = game.events[sent[seat] :]
            sent[seat] = len(game.events)
            reply = await clients[seat].decide(DecisionAsk(view, events, len(played), 1000, 0, 10.0))
            assert reply.fault is None, reply
            assert reply.action in view.legal, (reply.action, view.legal)
            game.apply(seat, reply.action)
            played.append(reply.action)
        assert game.outcome is not None
        for seat, client in enumerate(clients):
            assert await client.game_over(game.game_id, seat, game.outcome.placements, game.outcome.winner, 10.0) is None
        return played

    return run(main)


def test_whole_games_over_grpc_are_legal_and_reruns_identical(bots: BotLauncher) -> None:
    started = [bots.start(SAMPLES / "heuristic_bot.py"), bots.start(SAMPLES / "random_bot.py"), bots.start(SAMPLES / "random_bot.py")]

    async def hello_all() -> list[BotClient]:
        return [(await connect(bot))[0] for bot in started]

    clients = run(hello_all)
    try:
        first = play_game_over_grpc(clients, seed=11)
        again = play_game_over_grpc(clients, seed=11)
        other = play_game_over_grpc(clients, seed=12)
    finally:
        for client in clients:
            client.close()
    assert first == again
    assert first != other


# --- faults ------------------------------------------------------------------------


def start_bad(bots: BotLauncher, path: str, streams: str = "1") -> RunningBot:
    """The misbehaving bot, asked over ``path`` (``streams``: its $BAD_BOT_STREAMS on the stream path)."""
    return bots.start(BOTS / "bad_bot.py", {"BAD_BOT_STREAMS": streams if path == "stream" else ""})


def test_a_bot_that_offers_streams_without_play_is_told_so(bots: BotLauncher) -> None:
    reply = run(lambda: ask(start_bad(bots, "stream", "noplay"), "ok"))
    assert reply.fault == "malformed", reply
    assert "UNIMPLEMENTED" in reply.detail and "implement Play, or leave plays_streams false" in reply.detail


def test_a_stream_serves_a_seat_until_its_game_ends(bots: BotLauncher) -> None:
    bot = start_bad(bots, "stream")

    ends: list[int] = []

    async def main() -> list[Reply]:
        client, info = await connect(bot)
        assert info.streams
        try:
            replies = [await client.decide(DecisionAsk(hand_view(game_id="g1"), [], number, 250, 0, 10.0)) for number in (3, 7, 9)]
            client.end_play("g1", 1)
            with trio.fail_after(HELLO_TIMEOUT_S):
                while "Play ended g1" not in bot.output():
                    await trio.sleep(0.05)
            ends.append(bot.output().count("Play ended g1"))
            replies.append(await client.decide(DecisionAsk(hand_view(game_id="g1"), [], 11, 250, 0, 10.0)))  # a new stream
            return replies
        finally:
            client.close()

    replies = run(main)
    assert all(reply.fault is None and reply.action == Play(hand_view().hand[0]) for reply in replies), replies
    assert ends == [1], "one stream for the three decisions, ended with the game"


def test_a_bot_that_keeps_its_side_of_an_ended_stream_open_holds_nothing_up(bots: BotLauncher) -> None:
    bot = start_bad(bots, "stream", "linger")

    async def main() -> list[Reply]:
        client, _ = await connect(bot)
        try:
            first = await client.decide(DecisionAsk(hand_view(game_id="g1"), [], 3, 250, 0, 10.0))
            client.end_play("g1", 1)  # the bot never ends its side: the referee cancels it in the end
            second = await client.decide(DecisionAsk(hand_view(game_id="g2"), [], 4, 250, 0, 10.0))
            return [first, second]
        finally:
            client.close()  # returns: what the bot keeps open is cancelled, not waited for

    replies = run(main)
    assert all(reply.fault is None for reply in replies), replies
    assert "Play ended" not in bot.output()


@pytest.mark.parametrize(
    ("mode", "kind", "phrase"),
    [
        ("empty", DecisionKind.PLAY, "no action set"),
        ("unknown_enum", DecisionKind.PLAY, "rank is 99"),
        ("unspecified", DecisionKind.PLAY, "SUIT_UNSPECIFIED"),
        ("wrong_kind", DecisionKind.PLAY, "sets choose_trump but the decision asked was PLAY_CARD"),
        ("status", DecisionKind.PLAY, "gRPC status FAILED_PRECONDITION: bad bot refuses"),
    ],
)
def test_malformed_replies_become_malformed_faults(bots: BotLauncher, mode: str, kind: DecisionKind, phrase: str, path: str) -> None:
    bot = start_bad(bots, path)
    reply = run(lambda: ask(bot, mode, kind))
    assert reply.fault == "malformed", reply
    assert reply.action is None
    assert phrase in reply.detail
    assert f'"game_id":"{mode}"' in reply.request_json
    assert reply.answer


def test_a_sleeping_bot_times_out(bots: BotLauncher, path: str) -> None:
    bot = start_bad(bots, path)
    reply = run(lambda: ask(bot, "sleep", deadline_s=0.3))
    assert reply.fault == "timeout", reply
    assert reply.detail == "deadline of 300 ms exceeded"
    assert reply.answer.startswith("DEADLINE_EXCEEDED")


def test_a_bot_dying_mid_call_is_a_crash(bots: BotLauncher, path: str) -> None:
    bot = start_bad(bots, path)
    reply = run(lambda: ask(bot, "exit"))
    assert reply.fault == "crash", reply
    assert "UNAVAILABLE" in reply.detail or "CANCELLED" in reply.detail


def test_a_killed_bot_is_a_crash(bots: BotLauncher) -> None:
    bot = bots.start(SAMPLES / "random_bot.py")

    async def main() -> Reply:
        client, _ = await connect(bot)
        try:
            bot.process.send_signal(signal.SIGKILL)
            await trio.to_thread.run_sync(bot.process.wait)
            return await client.decide(DecisionAsk(hand_view(), [], 0, 250, 0, 5.0))
        finally:
            client.close()

    reply = run(main)
    assert reply.fault == "crash", reply
    assert reply.detail.startswith("gRPC status UNAVAILABLE")


def test_an_exception_in_a_kit_bot_is_malformed_and_the_bot_keeps_serving(bots: BotLauncher) -> None:
    bot = bots.start(BOTS / "raising_bot.py")

    async def main() -> tuple[Reply, Reply]:
        client, _ = await connect(bot)
        try:
            boom = await client.decide(DecisionAsk(hand_view(game_id="boom"), [], 0, 250, 0, 10.0))
            fine = await client.decide(DecisionAsk(hand_view(game_id="fine"), [], 1, 250, 0, 10.0))
            return boom, fine
        finally:
            client.close()

    boom, fine = run(main)
    assert boom.fault == "malformed"
    assert "INTERNAL" in boom.detail and "ZeroDivisionError: division by zero in my strategy" in boom.detail
    assert fine.fault is None and fine.action == Play(hand_view().hand[0])
    assert "Traceback" in bot.output()


def test_cancelling_a_decision_leaves_the_client_usable(bots: BotLauncher, path: str) -> None:
    bot = start_bad(bots, path)

    async def main() -> tuple[bool, Reply]:
        client, _ = await connect(bot)
        try:
            with trio.move_on_after(0.2) as scope:
                await client.decide(DecisionAsk(hand_view(game_id="sleep"), [], 0, 0, 0, None))  # no deadline
            after = await client.decide(DecisionAsk(hand_view(game_id="ok"), [], 1, 250, 0, 10.0))
            return scope.cancelled_caught, after
        finally:
            client.close()

    cancelled, after = run(main)
    assert cancelled
    assert after.fault is None and after.action == Play(hand_view().hand[0])


def test_game_over_unimplemented_is_not_an_error(bots: BotLauncher) -> None:
    bot = bots.start(BOTS / "bad_bot.py")

    async def main() -> str | None:
        client, _ = await connect(bot)
        try:
            return await client.game_over("g", 0, [1, 2], 0, 10.0)
        finally:
            client.close()

    assert run(main) is None


# --- hello -------------------------------------------------------------------------


def test_hello_with_another_major_version_is_a_protocol_error(bots: BotLauncher) -> None:
    bot = bots.start(BOTS / "bad_bot.py", {"BAD_BOT_MAJOR": "2"})
    client = BotClient(bot.address, "old")
    try:
        with pytest.raises(ProtocolMismatch, match=r"bot old .* speaks protocol 2\.0, the referee 1\.1") as caught:
            run(lambda: client.hello(HELLO_TIMEOUT_S))
    finally:
        client.close()
    assert caught.value.kind == "protocol"


def test_a_hello_reply_without_protocol_major_is_told_to_set_it(bots: BotLauncher) -> None:
    """An unset protocol_major reads 0: the bot forgot the field, it was not built from an
    older protos/ (issue 37)."""
    bot = bots.start(BOTS / "bad_bot.py", {"BAD_BOT_MAJOR": "0"})
    client = BotClient(bot.address, "new")
    try:
        with pytest.raises(ProtocolMismatch) as caught:
            run(lambda: client.hello(HELLO_TIMEOUT_S))
    finally:
        client.close()
    message = str(caught.value)
    assert "answered Hello without protocol_major" in message and "set protocol_major = 1 and protocol_minor = 1" in message
    assert "rebuild" not in message and "0.0" not in message


def test_hello_to_nobody_is_a_startup_error(bots: BotLauncher) -> None:
    client = BotClient(f"unix:{bots.directory}/nobody.sock", "ghost")
    try:
        with pytest.raises(HelloError, match=r"bot ghost at unix:.*nobody\.sock: no Hello reply within 0\.5 s") as caught:
            run(lambda: client.hello(0.5))
    finally:
        client.close()
    assert caught.value.kind == "startup"
    assert not isinstance(caught.value, ProtocolMismatch)


def test_listen_address_from_argv_and_clean_exit_on_sigterm(bots: BotLauncher) -> None:
    bot = bots.start(SAMPLES / "random_bot.py", use_argv=True)
    run(lambda: ask(bot, "g"))
    bot.process.send_signal(signal.SIGTERM)
    assert bot.process.wait(timeout=60) == 0, bot.output()
