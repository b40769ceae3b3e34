"""Plays a card of another suit when it could follow suit (fault ``illegal``);
otherwise its lowest legal card."""

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class OffSuit(Bot):
    name = "offsuit"

    def play(self, view: SeatView) -> Card | None:
        led = view.led_suit
        others = [card for card in view.hand if card.suit != led]
        if led is not None and others and any(card.suit == led for card in view.hand):
            return others[0]
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))


serve(OffSuit())
