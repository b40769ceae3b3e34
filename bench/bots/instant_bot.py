"""A trivial bot for the benchmarks: answers every decision at once with the first
legal action the request lists (``request.legal[0]``), without decoding the view.

It serves the real contract with the generated stubs (a plain gRPC servicer, like any
student's bot), so the referee sees a correct bot whose thinking time is ~0. Hello
answers the referee's protocol version; GameOver is acknowledged.

Run: ``KWHIST_LISTEN=unix:/tmp/instant.sock python bench/bots/instant_bot.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the referee's generated stubs

import referee  # noqa: E402
from referee._proto.knockout_whist.v1 import bot_pb2 as pb  # noqa: E402
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc  # noqa: E402
from raw_server import serve  # noqa: E402  (beside this file)


class InstantBot(pb_grpc.KnockoutWhistBotServicer):
    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        major, minor = referee.PROTOCOL_VERSION
        return pb.HelloReply(protocol_major=major, protocol_minor=minor, name="instant", author="bench")

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        return request.legal[0]

    def GameOver(self, request: pb.GameSummary, context: grpc.ServicerContext) -> pb.Ack:  # noqa: N802
        return pb.Ack()


def main() -> None:
    serve(InstantBot(), "instant_bot")


if __name__ == "__main__":
    main()
