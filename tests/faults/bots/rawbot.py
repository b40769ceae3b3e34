"""A bot written against the generated code directly, for answers the bot kit cannot
give (a wrong protocol version, a reply of the wrong kind, reading time_left_ms).

Subclass :class:`RawBot`, override :meth:`RawBot.decide` (or ``Decide``), call
:func:`serve_raw`. It offers Play streams as the kit does (``--unary`` on its command
line: not); each streamed request is answered by ``Decide``, so a bot misbehaves alike on
both paths (an abort ends the stream). Override :meth:`RawBot.answer` for what only a
stream can get wrong. GameOver is left unimplemented on purpose (UNIMPLEMENTED is not a fault).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc


class RawBot(pb_grpc.KnockoutWhistBotServicer):
    name = "raw"
    major = 1

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        return pb.HelloReply(
            protocol_major=self.major, protocol_minor=0, name=self.name, author="tests", plays_streams="--unary" not in sys.argv
        )

    def Play(self, requests, context):  # noqa: N802
        for request in requests:
            answer = self.answer(request, context)
            if answer is None:
                return  # end the stream (status OK) without answering
            yield answer

    def answer(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Answer | None:
        """The streamed answer to ``request`` (None: end the stream instead)."""
        return pb.Answer(decision_number=request.decision_number, action=self.Decide(request, context))

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        return self.decide(request)

    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        return request.legal[0]


def serve_raw(bot: RawBot) -> None:
    server = grpc.server(ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_KnockoutWhistBotServicer_to_server(bot, server)
    server.add_insecure_port(os.environ["KWHIST_LISTEN"])
    server.start()
    print(f"{bot.name} serving", file=sys.stderr, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(0)
