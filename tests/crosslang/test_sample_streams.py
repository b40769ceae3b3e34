"""The Node, C++, Go and Java sample bots speak protocol 1.1's ``Play`` (protos/knockout_whist/v1/
bot.proto): Hello says ``plays_streams``, and whole games of the real engine played on one
``Play`` stream per seat get, for every DecisionRequest in turn, an Answer that echoes its
decision_number, is legal, and equals the bot's unary ``Decide`` answer to the same request
(the samples are deterministic). A stream cancelled mid-game, as the referee does after a
fault, leaves the bot serving the seat's next decision on a new stream.

The requests are the referee's own (``codec.view_to_request``), over real gRPC on the
Unix socket of ``$KWHIST_LISTEN``; the referee itself still asks by ``Decide`` here."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc
import pytest

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.transport import codec
from tests.crosslang.helpers import start_cpp, start_go, start_java, start_node
from tests.transport.helpers import HELLO_TIMEOUT_S, BotLauncher, RunningBot

pytestmark = [pytest.mark.crosslang, pytest.mark.timeout(600)]

STARTERS: dict[str, Callable[[BotLauncher], RunningBot]] = {"node": start_node, "cpp": start_cpp, "go": start_go, "java": start_java}
NAMES = {"node": "node-sample", "cpp": "cpp-sample", "go": "go-sample", "java": "java-sample"}
CALL_TIMEOUT_S = 120.0  # generous: a loaded machine, a JVM warming up; no timing is tested
# (seats, rules, seed): the default rules, and no trump allowed with the dog's card face down
GAMES = [(4, Rules(), 3), (3, Rules(allow_no_trump=True, dog_play="first_trick", dog_life="any_round"), 8)]
CANCEL_AFTER = 2  # seat 0's stream is cancelled after its 2nd answer, as after a fault


@dataclass
class SeatStream:
    """One ``Play`` stream of one seat: requests go in through a queue, answers come out in order."""

    stub: pb_grpc.KnockoutWhistBotStub
    requests: queue.Queue[pb.DecisionRequest | None] = field(default_factory=queue.Queue)
    answers: Iterator[pb.Answer] | None = None

    def __post_init__(self) -> None:
        self.answers = self.stub.Play(iter(self.requests.get, None), timeout=10 * CALL_TIMEOUT_S)

    def ask(self, request: pb.DecisionRequest) -> pb.Answer:
        assert self.answers is not None
        self.requests.put(request)
        return next(self.answers)

    def end(self) -> list[pb.Answer]:
        """Close the referee's side, as at the game's end; return what else the bot sent (nothing)."""
        assert self.answers is not None
        self.requests.put(None)
        return list(self.answers)  # raises grpc.RpcError unless the bot ends with OK

    def cancel(self) -> None:
        call: grpc.Call = self.answers  # type: ignore[assignment]
        call.cancel()
        self.requests.put(None)


def play_on_streams(stub: pb_grpc.KnockoutWhistBotStub, seats: int, rules: Rules, seed: int) -> int:
    """Play one whole game with every seat on its own Play stream of ``stub``'s bot, each
    answer checked against the request and against Decide; return the decisions played."""
    game = Game(num_seats=seats, rules=rules, seed=seed, game_id=f"stream-{seed}")
    streams = [SeatStream(stub) for _ in range(seats)]
    sent = [0] * seats
    asked = [0] * seats
    number = 0
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        request = codec.view_to_request(view, game.events[sent[seat] :], number, 5000, 0)
        sent[seat] = len(game.events)
        answer = streams[seat].ask(request)
        assert answer.decision_number == number, (answer, number)
        action = codec.proto_to_action(answer.action, view)
        assert action in view.legal, (action, view.legal)
        assert answer.action == stub.Decide(request, timeout=CALL_TIMEOUT_S), f"decision {number}: Play and Decide differ"
        game.apply(seat, action)
        number += 1
        asked[seat] += 1
        if seat == 0 and asked[seat] == CANCEL_AFTER:
            streams[seat].cancel()
            streams[seat] = SeatStream(stub)  # the seat's next decision comes on a new stream
    for stream in streams:
        assert stream.end() == []
    return number


@pytest.mark.parametrize("language", list(STARTERS))
def test_a_sample_bot_plays_whole_games_on_streams_as_it_decides(bots: BotLauncher, language: str, request: pytest.FixtureRequest) -> None:
    request.getfixturevalue(f"needs_{language}")
    bot = STARTERS[language](bots)
    channel = grpc.insecure_channel(bot.address)
    try:
        stub = pb_grpc.KnockoutWhistBotStub(channel)
        try:
            hello = stub.Hello(pb.HelloRequest(protocol_major=1, protocol_minor=1), timeout=HELLO_TIMEOUT_S, wait_for_ready=True)
        except grpc.RpcError as error:
            raise AssertionError(f"no Hello: {error}; bot output:\n{bot.output()}") from None
        assert (hello.name, hello.protocol_major, hello.protocol_minor, hello.plays_streams) == (NAMES[language], 1, 1, True)
        played = [play_on_streams(stub, seats, rules, seed) for seats, rules, seed in GAMES]
    finally:
        channel.close()
    assert all(decisions > 10 for decisions in played), played
    assert bot.process.poll() is None, bot.output()
