"""My first Knockout Whist bot: take the trick as cheaply as I can, else throw my lowest card.

Run it: KWHIST_LISTEN=unix:/tmp/first.sock python first_bot.py
Play it: referee play "python first_bot.py" heuristic random --trace
"""

from referee.botkit import Bot, Card, SeatView, Suit, can_pass, legal_cards, legal_suits, serve, trick_winner
from referee.botkit.helpers import beats


class FirstBot(Bot):
    name = "first-bot"
    author = "me"

    def play(self, view: SeatView) -> Card | None:
        cards = legal_cards(view)  # what I may play now; I must follow suit if I can
        winning = trick_winner(view.current_trick, view.trump)  # (seat, card) so far, None if I lead
        if winning is None:
            return max(cards, key=lambda card: card.rank)  # lead my highest card
        takers = [card for card in cards if beats(card, winning[1], view.trump)]
        if takers:
            return min(takers, key=lambda card: card.rank)  # win as cheaply as I can
        if can_pass(view):
            return None  # on the dog's life: keep my one card for a trick it can win
        return min(cards, key=lambda card: card.rank)  # cannot win: throw my lowest card

    def choose_trump(self, view: SeatView) -> Suit | None:
        suits = [suit for suit in legal_suits(view) if suit is not None]  # None would be no trump
        return max(suits, key=lambda suit: sum(card.suit is suit for card in view.hand))  # my longest suit


if __name__ == "__main__":
    serve(FirstBot())
