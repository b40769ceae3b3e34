"""Row 13, written against the generated code: answers legally, except in every game on
its 3rd decision an Action with no action set, on its 4th bytes that are no Action at all,
and on its 5th a gRPC error status (INVALID_ARGUMENT)."""

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb

SERVICE = "knockout_whist.v1.KnockoutWhistBot"
asked: dict[str, int] = {}  # per game


def hello(request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:
    return pb.HelloReply(protocol_major=1, protocol_minor=0, name="malformed", author="tests")


def decide(request: pb.DecisionRequest, context: grpc.ServicerContext) -> bytes:
    count = asked[request.game_id] = asked.get(request.game_id, 0) + 1
    if count == 3:
        return pb.Action().SerializeToString()
    if count == 4:
        return b"\x0a\xff\x01"  # field 1, 255 bytes long, cut short: not an Action
    if count == 5:
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "malformed: refusing on purpose")
    return request.legal[0].SerializeToString()


handlers = {
    "Hello": grpc.unary_unary_rpc_method_handler(
        hello, request_deserializer=pb.HelloRequest.FromString, response_serializer=pb.HelloReply.SerializeToString
    ),
    "Decide": grpc.unary_unary_rpc_method_handler(
        decide, request_deserializer=pb.DecisionRequest.FromString, response_serializer=lambda raw: raw
    ),
}
server = grpc.server(ThreadPoolExecutor(max_workers=1))
server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
server.add_insecure_port(os.environ["KWHIST_LISTEN"])
server.start()
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
server.stop(0)
