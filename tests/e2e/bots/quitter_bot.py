"""Plays its lowest legal card, then exits cleanly on its 5th decision (mid-game)."""

import os

from referee.botkit import Bot, serve
from referee.game.cards import Card, Suit
from referee.game.views import Play, SeatView


class Quitter(Bot):
    name = "quitter"
    decisions = 0

    def play(self, view: SeatView) -> Card | None:
        self.decisions += 1
        if self.decisions == 5:
            os._exit(0)
        return next(a.card for a in view.legal if isinstance(a, Play))

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.CLUBS


serve(Quitter())
