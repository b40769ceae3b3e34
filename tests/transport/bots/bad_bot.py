"""A misbehaving bot for the transport tests, written against the generated code directly.

Its Decide misbehaves according to the request's game_id: ``empty`` (no oneof set),
``unknown_enum`` (rank 99), ``unspecified`` (suit 0), ``wrong_kind`` (a trump choice when a
card is asked), ``status`` (gRPC FAILED_PRECONDITION), ``sleep`` (30 s), ``exit`` (the
process dies mid-call); anything else: the first legal action. Hello reports protocol
major ``$BAD_BOT_MAJOR`` (default 1). GameOver is left unimplemented.

``$BAD_BOT_STREAMS``: ``1`` offers Play streams (plays_streams), each request answered by
Decide as above (an abort ends the stream), writing ``Play ended <game id>`` to stderr
when the referee ends a stream; ``noplay`` offers them but leaves Play unimplemented;
``linger`` answers as ``1`` but keeps its side of a stream open 30 s after the referee ended it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc


class Bad(pb_grpc.KnockoutWhistBotServicer):
    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        major = int(os.environ.get("BAD_BOT_MAJOR", "1"))
        streams = os.environ.get("BAD_BOT_STREAMS", "") in ("1", "noplay", "linger")
        return pb.HelloReply(protocol_major=major, protocol_minor=0, name="bad", author="tests", plays_streams=streams)

    def Play(self, requests, context):  # noqa: N802
        if os.environ.get("BAD_BOT_STREAMS") == "noplay":
            return super().Play(requests, context)
        return self._answers(requests, context)

    def _answers(self, requests, context):
        game_id = ""
        for request in requests:
            game_id = request.game_id
            yield pb.Answer(decision_number=request.decision_number, action=self.Decide(request, context))
        if os.environ.get("BAD_BOT_STREAMS") == "linger":
            time.sleep(30)  # never ends its side of a stream the referee has ended
        print(f"Play ended {game_id}", file=sys.stderr, flush=True)

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        mode = request.game_id
        if mode == "empty":
            return pb.Action()
        if mode == "unknown_enum":
            return pb.Action(play=pb.Card(rank=99, suit=pb.SPADES))  # type: ignore[arg-type]
        if mode == "unspecified":
            return pb.Action(play=pb.Card(rank=pb.ACE, suit=pb.SUIT_UNSPECIFIED))
        if mode == "wrong_kind":
            return pb.Action(choose_trump=pb.TrumpChoice(suit=pb.HEARTS))
        if mode == "status":
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "bad bot refuses")
        if mode == "sleep":
            time.sleep(30)
        if mode == "exit":
            os._exit(3)
        return request.legal[0]


def main() -> None:
    server = grpc.server(ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_KnockoutWhistBotServicer_to_server(Bad(), server)  # type: ignore[abstract]  # GameOver left unimplemented on purpose
    server.add_insecure_port(os.environ["KWHIST_LISTEN"])
    server.start()
    print("bad bot serving", file=sys.stderr, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(0)


if __name__ == "__main__":
    main()
