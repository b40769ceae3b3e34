"""Plays its lowest legal card, but raises (fault ``malformed``) in any game whose rules
deal fewer than 7 cards in round 1: it passes check-bot under the default rules and fails
its games under ``--rule start_hand_size=3``."""

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class ShortGame(Bot):
    name = "short-game"

    def play(self, view: SeatView) -> Card | None:
        if view.rules.start_hand_size < 7:
            raise RuntimeError("this bot only knows 7-card games")
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))


serve(ShortGame())
