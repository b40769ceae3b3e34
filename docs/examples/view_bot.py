"""A bot that reads the whole view: the trick so far, the seats still to play, the tricks
already won this round, the dog's life and the cards not seen yet.

Run it: KWHIST_LISTEN=unix:/tmp/view.sock python view_bot.py
Play it: referee play "python view_bot.py" heuristic random --trace
"""

from referee.botkit import Bot, Card, SeatStatus, SeatView, Suit, can_pass, legal_cards, serve, trick_winner, unseen_cards
from referee.botkit.helpers import beats


class ViewBot(Bot):
    name = "view-bot"

    def play(self, view: SeatView) -> Card | None:
        cards = sorted(legal_cards(view), key=lambda card: card.rank)  # low to high
        trick = view.current_trick  # the trick being played: trick.plays so far (seat, card), trick.leader
        winning = trick_winner(trick, view.trump)  # (seat, card) winning it so far; None: I lead
        last_to_play = len(view.to_play) == 1  # to_play: the seats still to act, me first
        safe = view.tricks_won[view.seat] > 0 and view.rules.required_tricks == "one"  # one trick keeps me in
        if view.status[view.seat] is SeatStatus.DOG:  # on the dog's life: one card, one chance
            if can_pass(view) and not (last_to_play and winning and beats(cards[0], winning[1], view.trump)):
                return None  # keep it for a trick it surely wins (the last trick I must play it)
            return cards[0]
        if winning is None:  # I lead: my card that nobody can beat, else my lowest
            unseen = unseen_cards(view)  # not in my hand, not played this round, not the turn-up
            sure = [card for card in cards if not any(beats(other, card, view.trump) for other in unseen)]
            return sure[0] if sure and not safe else cards[0]
        takers = [card for card in cards if beats(card, winning[1], view.trump)]
        if takers and not safe:
            return takers[0] if last_to_play else takers[-1]  # last to play: just enough; else my best
        return cards[0]  # cannot (or need not) win: throw my lowest

    def choose_trump(self, view: SeatView) -> Suit | None:
        return max(Suit, key=lambda suit: sum(card.rank for card in view.hand if card.suit is suit))


if __name__ == "__main__":
    serve(ViewBot())
