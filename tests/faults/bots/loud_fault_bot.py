"""Faults on purpose at every decision: it answers gRPC status INTERNAL with details of
about 8 KB (as long as gRPC lets them be; fault ``malformed``). Written against the
generated code, since the bot kit shortens its error messages."""

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from rawbot import RawBot, serve_raw


class Loud(RawBot):
    name = "loud"

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        context.abort(grpc.StatusCode.INTERNAL, "x" * 7_500)


serve_raw(Loud())
