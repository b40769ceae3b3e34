"""Issue 35: on a ``Play`` stream an Answer the bot sent before its request was sent is a
``malformed`` fault, whatever decision number it guessed (docs/protocol.md); it used to be
taken as the answer once the request went out, judged at ~0 ms. The seat's next decision
opens a new stream and is judged as usual."""

from __future__ import annotations

import time

import trio

from referee.game.views import Play
from referee.transport.client import BotClient, DecisionAsk, Reply
from tests.transport.helpers import BOTS, HELLO_TIMEOUT_S, BotLauncher, RunningBot, hand_view

SETTLE_S = 1.0  # for the early answer to reach the referee's gRPC once the bot has sent it


def wait_output(bot: RunningBot, text: str, timeout_s: float = HELLO_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in bot.output():
        assert time.monotonic() < deadline, bot.output()
        time.sleep(0.02)
    time.sleep(SETTLE_S)


def test_an_answer_sent_before_its_request_is_a_malformed_fault(bots: BotLauncher) -> None:
    bot = bots.start(BOTS / "early_bot.py")

    async def main() -> list[Reply]:
        client = BotClient(bot.address, "early")
        try:
            info = await client.hello(HELLO_TIMEOUT_S)
            assert info.streams
            replies = []
            for number in (3, 4, 5, 6):
                replies.append(await client.decide(DecisionAsk(hand_view(game_id="g1"), [], number, 250, 0, 10.0)))
                if number in (3, 5):  # the bot sends its early answer now; the next ask comes after it
                    await trio.to_thread.run_sync(wait_output, bot, f"early sent {number + 1}")
            return replies
        finally:
            client.close()

    first, early, fresh, again = trio.run(main)
    assert first.fault is None and first.action == Play(hand_view().hand[0]), first
    for reply, number in ((early, 4), (again, 6)):
        assert reply.fault == "malformed", reply
        assert reply.detail == (
            f"its Play stream sent an Answer (decision_number {number}) before decision {number} was asked: "
            "an answer must follow its request"
        ), reply.detail
        assert f'"decision_number":{number}' in reply.answer
    assert fresh.fault is None and fresh.action == Play(hand_view().hand[0]), "the next decision opens a new stream"
