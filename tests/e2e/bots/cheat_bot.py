"""Answers with a card it does not hold (the first card of the deck it lacks), quickly."""

from referee.botkit import Bot, serve
from referee.game.cards import CARDS, Card, Suit
from referee.game.views import SeatView


class Cheat(Bot):
    name = "cheat"

    def play(self, view: SeatView) -> Card | None:
        return next(card for card in CARDS if card not in view.hand)

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.HEARTS


serve(Cheat())
