"""Answers every request with a trump choice, also when a card is asked (fault ``malformed``)."""

from rawbot import RawBot, serve_raw

from referee._proto.knockout_whist.v1 import bot_pb2 as pb


class WrongKind(RawBot):
    name = "wrong-kind"

    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        return pb.Action(choose_trump=pb.TrumpChoice(suit=pb.HEARTS))


serve_raw(WrongKind())
