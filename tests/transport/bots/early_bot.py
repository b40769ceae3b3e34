"""A bot that answers on its Play stream before it is asked (issue 35): after each answer it
sends at once an Answer for the next decision number, guessed, with the same action, and
writes ``early sent <number>`` to stderr once gRPC has taken it. The first decision of a
stream is answered properly; Decide answers properly."""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc


class Early(pb_grpc.KnockoutWhistBotServicer):
    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        return pb.HelloReply(protocol_major=1, protocol_minor=0, name="early", author="tests", plays_streams=True)

    def Play(self, requests, context):  # noqa: N802
        for request in requests:
            yield pb.Answer(decision_number=request.decision_number, action=request.legal[0])
            yield pb.Answer(decision_number=request.decision_number + 1, action=request.legal[0])
            print(f"early sent {request.decision_number + 1}", file=sys.stderr, flush=True)

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        return request.legal[0]


def main() -> None:
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_KnockoutWhistBotServicer_to_server(Early(), server)  # type: ignore[abstract]  # GameOver left unimplemented
    server.add_insecure_port(os.environ["KWHIST_LISTEN"])
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(0)


if __name__ == "__main__":
    main()
