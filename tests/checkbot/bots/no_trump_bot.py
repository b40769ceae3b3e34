"""Never names trump: asked CHOOSE_TRUMP it answers with a card (a reply of the wrong
kind, fault ``malformed``). Written against the generated code: the bot kit cannot send it."""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc


class NoTrump(pb_grpc.KnockoutWhistBotServicer):
    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        return pb.HelloReply(protocol_major=1, protocol_minor=0, name="no-trump", author="tests")

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        if request.decision == pb.CHOOSE_TRUMP:
            return pb.Action(play=request.view.hand[0])
        return request.legal[0]


server = grpc.server(ThreadPoolExecutor(max_workers=4))
pb_grpc.add_KnockoutWhistBotServicer_to_server(NoTrump(), server)  # type: ignore[abstract]
server.add_insecure_port(os.environ["KWHIST_LISTEN"])
server.start()
print("no-trump serving", file=sys.stderr, flush=True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
server.stop(0)
