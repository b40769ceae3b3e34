"""Plays its lowest legal card; its process exits (code 3) on its 3rd decision (fault ``crash``)."""

import os

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class Crash(Bot):
    name = "crash"
    decisions = 0

    def play(self, view: SeatView) -> Card | None:
        self.decisions += 1
        if self.decisions == 3:
            os._exit(3)
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))


serve(Crash())
