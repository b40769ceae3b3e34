"""A bot for the load benchmark (B12): answers at once, except every 5th decision of a
game (by ``decision_number``), where it first sleeps 3 × the ``time_left_ms`` of its
request: a bot that really is slow, and must get its timeouts however loaded the machine.

Run: ``KWHIST_LISTEN=unix:/tmp/sleeper.sock python bench/bots/sleeper_bot.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the referee's generated stubs

import referee  # noqa: E402
from referee._proto.knockout_whist.v1 import bot_pb2 as pb  # noqa: E402
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc  # noqa: E402
from raw_server import serve  # noqa: E402  (beside this file)

EVERY = 5  # every EVERY-th decision of a game is slept through
SLEEP = 3.0  # × time_left_ms


class SleeperBot(pb_grpc.KnockoutWhistBotServicer):
    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        major, minor = referee.PROTOCOL_VERSION
        return pb.HelloReply(protocol_major=major, protocol_minor=minor, name="sleeper", author="bench")

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        if request.decision_number % EVERY == 0:
            time.sleep(request.time_left_ms * SLEEP / 1000)
        return request.legal[0]

    def GameOver(self, request: pb.GameSummary, context: grpc.ServicerContext) -> pb.Ack:  # noqa: N802
        return pb.Ack()


def main() -> None:
    serve(SleeperBot(), "sleeper_bot")


if __name__ == "__main__":
    main()
