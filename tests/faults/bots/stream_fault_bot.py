"""Plays its first legal action on its Play stream, but once a game it goes wrong there
(``--mode``): ``wrong-number`` answers its 2nd request of the game with the next
decision's number; ``quit`` ends the stream (status OK) instead of answering it. Writes
``Play opened <game id>`` to stderr for every stream the referee opens."""

import sys
import threading

from rawbot import RawBot, serve_raw

from referee._proto.knockout_whist.v1 import bot_pb2 as pb

MODE = sys.argv[sys.argv.index("--mode") + 1]


class StreamFault(RawBot):
    name = f"stream-{MODE}"
    lock = threading.Lock()
    asked: dict[str, int] = {}

    def Play(self, requests, context):  # noqa: N802
        opened = False
        for request in requests:
            if not opened:
                print(f"Play opened {request.game_id}", file=sys.stderr, flush=True)
                opened = True
            with self.lock:
                count = self.asked[request.game_id] = self.asked.get(request.game_id, 0) + 1
            if count == 2 and MODE == "quit":
                return  # the stream ends, status OK, with the request unanswered
            number = request.decision_number + (1 if count == 2 else 0)
            yield pb.Answer(decision_number=number, action=request.legal[0])


serve_raw(StreamFault())
