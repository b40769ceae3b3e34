"""Plays the lowest legal card after 25 ms of thought: a game with it lasts a second or so,
long enough for a test to look at the site while a deal's next rotation is played."""

import time

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class Slow(Bot):
    name = "slow"

    def play(self, view: SeatView) -> Card | None:
        time.sleep(0.025)
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))


serve(Slow())
