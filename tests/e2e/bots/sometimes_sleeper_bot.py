"""A bot that really is slow in a few % of its decisions: when the crc32 of its game id
and decision number is 0 modulo ``EVERY`` (argv[1]) it sleeps ``SLEEP_S`` (argv[2]) seconds,
past the limit of the test that runs it, whichever ask it is; otherwise it plays its first
legal action at once. It answers one request at a time (a decision after a sleep waits for
it), and says each sleep in its log ("SLEEP game decision"). Offers ``Play`` streams unless
``--unary``."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc

EVERY, SLEEP_S = int(sys.argv[1]), float(sys.argv[2])


def sleeps(game_id: str, decision: int) -> bool:
    return zlib.crc32(f"{game_id}:{decision}".encode()) % EVERY == 0


class Sleeper(pb_grpc.KnockoutWhistBotServicer):
    def __init__(self) -> None:
        self.one_at_a_time = threading.Lock()

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        return pb.HelloReply(protocol_major=1, protocol_minor=1, name="sometimes-sleeper", author="tests", plays_streams="--unary" not in sys.argv)

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        with self.one_at_a_time:
            if sleeps(request.game_id, request.decision_number):
                print(f"SLEEP {request.game_id} {request.decision_number}", file=sys.stderr, flush=True)
                time.sleep(SLEEP_S)
            return request.legal[0]

    def Play(self, requests: Iterator[pb.DecisionRequest], context: grpc.ServicerContext) -> Iterator[pb.Answer]:  # noqa: N802
        for request in requests:
            yield pb.Answer(decision_number=request.decision_number, action=self.Decide(request, context))


server = grpc.server(ThreadPoolExecutor(max_workers=8))
pb_grpc.add_KnockoutWhistBotServicer_to_server(Sleeper(), server)
server.add_insecure_port(os.environ["KWHIST_LISTEN"])
server.start()
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
