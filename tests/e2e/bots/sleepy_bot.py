"""Sleeps far past its deadline on its 3rd decision of every game, otherwise plays the lowest legal card."""

import time

from referee.botkit import Bot, serve
from referee.game.cards import Card, Suit
from referee.game.views import Play, SeatView


class Sleepy(Bot):
    name = "sleepy"
    asked: dict[str, int] = {}

    def play(self, view: SeatView) -> Card | None:
        count = self.asked.get(view.game_id, 0) + 1
        self.asked[view.game_id] = count
        if count == 3:
            time.sleep(3)
        return next(a.card for a in view.legal if isinstance(a, Play))

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.SPADES


serve(Sleepy())
