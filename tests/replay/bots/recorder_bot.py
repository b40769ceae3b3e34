"""Writes every request it receives, as the codec's JSON, one line each, to the file
named by its first argument; answers a card it does not hold on its 3rd request of each
game (an ``illegal`` fault with evidence), sleeps 1.5 s on its 5th (a ``timeout`` that
empties its time bank), else the lowest legal action."""

import sys
import time

from referee.botkit import Bot, serve, server
from referee.game.cards import CARDS, Card, Suit
from referee.game.views import Play, SeatView
from referee.transport import codec

OUT = sys.argv[1]
_original = server.decide


def _recording(bot, request, *when):  # type: ignore[no-untyped-def]
    with open(OUT, "a", encoding="utf-8") as out:
        out.write(codec.request_json(request) + "\n")
    return _original(bot, request, *when)


server.decide = _recording  # the kit's server looks it up at each request


class Recorder(Bot):
    name = "recorder"
    asked: dict[str, int] = {}

    def play(self, view: SeatView) -> Card | None:
        count = self.asked[view.game_id] = self.asked.get(view.game_id, 0) + 1
        if count == 3:
            return next(card for card in CARDS if card not in view.hand)
        if count == 5:
            time.sleep(1.5)
        return next((a.card for a in view.legal if isinstance(a, Play)), None)

    def choose_trump(self, view: SeatView) -> Suit | None:
        self.asked[view.game_id] = self.asked.get(view.game_id, 0) + 1
        return Suit.SPADES


serve(Recorder())
