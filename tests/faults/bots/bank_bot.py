"""Reads the time it is told: on its first decision of each game it takes all of
``time_left_ms`` plus half of ``bank_left_ms`` (an overrun the bank pays for), then
answers at once; every (game, time_left_ms, bank_left_ms) it is told goes to stderr."""

import sys
import time

from rawbot import RawBot, serve_raw

from referee._proto.knockout_whist.v1 import bot_pb2 as pb


class Bank(RawBot):
    name = "bank"
    seen: set[str] = set()

    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        print(f"told {request.game_id} {request.time_left_ms} {request.bank_left_ms}", file=sys.stderr, flush=True)
        if request.game_id not in self.seen:
            self.seen.add(request.game_id)
            time.sleep((request.time_left_ms + request.bank_left_ms / 2) / 1000)
        return request.legal[0]


serve_raw(Bank())
