"""A bot for the timeout benchmark (B5): answers every decision with the first legal
action after half of the ``time_left_ms`` its request gives it.

``--spin`` (default) busy-waits for that time, burning CPU as a thinking bot does, so the
cores are full; ``--sleep`` waits idle. Either way the answer leaves at half the limit
by the wall clock. Hello answers the referee's protocol version; GameOver is acknowledged.

Run: ``KWHIST_LISTEN=unix:/tmp/half.sock python bench/bots/half_time_bot.py --spin``.
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

SPIN = "--sleep" not in sys.argv


class HalfTimeBot(pb_grpc.KnockoutWhistBotServicer):
    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        major, minor = referee.PROTOCOL_VERSION
        return pb.HelloReply(protocol_major=major, protocol_minor=minor, name="half-time", author="bench")

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        until = time.monotonic() + request.time_left_ms / 2000
        if SPIN:
            while time.monotonic() < until:
                pass
        else:
            time.sleep(max(0.0, until - time.monotonic()))
        return request.legal[0]

    def GameOver(self, request: pb.GameSummary, context: grpc.ServicerContext) -> pb.Ack:  # noqa: N802
        return pb.Ack()


def main() -> None:
    serve(HalfTimeBot(), "half_time_bot")


if __name__ == "__main__":
    main()
