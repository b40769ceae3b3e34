"""The Python bot kit: address selection, and a kit bot served in-process over real gRPC."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import trio

from referee.botkit import Bot, GameSummary, SeatView, listen_address, start
from referee.botkit.server import offers_streams
from referee.game.cards import Card, parse_card
from referee.game.views import CardPlayed, Event, Pass, TrickWon
from referee.transport.client import BotClient, DecisionAsk, Reply
from tests.transport.helpers import hand_view


def test_listen_address_prefers_argv_over_the_environment() -> None:
    env = {"KWHIST_LISTEN": "unix:/tmp/env.sock"}
    assert listen_address([], env) == "unix:/tmp/env.sock"
    assert listen_address(["--listen", "127.0.0.1:5"], env) == "127.0.0.1:5"
    assert listen_address(["--listen=unix:/x.sock"], env) == "unix:/x.sock"
    with pytest.raises(SystemExit, match="KWHIST_LISTEN"):
        listen_address([], {})


class Recorder(Bot):
    name = "recorder"
    author = "tests"

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.summaries: list[GameSummary] = []
        self.times: list[int | None] = []

    def observe(self, view: SeatView, events: Sequence[Event]) -> None:
        self.events.extend(events)

    def observe_time(self, view: SeatView, last_decision_ms: int | None) -> None:
        self.times.append(last_decision_ms)

    def play(self, view: SeatView) -> Card | None:
        if view.game_id == "pass":
            return None
        if view.game_id == "junk":
            return "KC"  # type: ignore[return-value]  # a bot bug: not a Card
        return view.hand[0]

    def game_over(self, summary: GameSummary) -> None:
        self.summaries.append(summary)


def test_the_kit_offers_play_streams_unless_told_unary() -> None:
    assert offers_streams([]) and offers_streams(["--listen", "unix:/x.sock"])
    assert not offers_streams(["--unary"]) and not offers_streams(["--listen", "unix:/x.sock", "--unary"])


@pytest.fixture(params=["stream", "unary"])
def served(short_tmp: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Recorder, str, bool]]:
    """A kit bot served in-process, offering Play streams or only unary Decide."""
    bot = Recorder()
    address = f"unix:{short_tmp}/kit.sock"
    streams = request.param == "stream"
    server = start(bot, address, max_workers=4, streams=streams)  # each open stream (3 games here) holds a worker
    try:
        yield bot, address, streams
    finally:
        server.stop(None)


def test_a_kit_bot_gets_events_answers_and_hears_the_result(served: tuple[Recorder, str, bool]) -> None:
    bot, address, streams = served
    events: list[Event] = [CardPlayed(2, parse_card("7C")), TrickWon(0, 1)]

    async def main() -> tuple[Reply, Reply, Reply, str | None]:
        client = BotClient(address, "recorder")
        try:
            info = await client.hello(30)
            assert (info.name, info.author, info.streams) == ("recorder", "tests", streams)
            assert client.plays_streams is streams
            played = await client.decide(DecisionAsk(hand_view(game_id="g"), events, 0, 250, 100, 10))
            passed = await client.decide(DecisionAsk(hand_view(game_id="pass"), [], 1, 250, 100, 10, last_decision_ms=41.7))
            junk = await client.decide(DecisionAsk(hand_view(game_id="junk"), [], 2, 250, 100, 10))
            over = await client.game_over("g", 1, [2, 1, 3], None, 10, (False, True, False), (0, 2, 0))
            return played, passed, junk, over
        finally:
            client.close()

    played, passed, junk, over = trio.run(main)
    assert played.answer == str(hand_view().hand[0])
    assert passed.action == Pass()  # the kit encodes None as a pass; the match judges legality
    assert junk.fault == "malformed" and "play() returned 'KC'" in junk.detail
    assert over is None
    assert bot.events == events
    assert bot.summaries == [GameSummary(game_id="g", seat=1, placements=(2, 1, 3), winner=None, forfeited=(False, True, False), faults=(0, 2, 0))]
    assert bot.times == [None, 42, None]
