"""The sample heuristic: a simple card-counting strategy, clearly stronger than random.

The strategy of ``sample_bots/python/heuristic_bot.py``, here so that a bot's look-ahead can
play it for every seat (:data:`referee.botkit.search.heuristic`):

- Trump: the suit with the best length + honours score (A=4, K=3, Q=2, J=1, 2 per card);
  no trump (when allowed) only with a weak best suit and two or more aces.
- Lead: a sure winner outside trumps (no higher card of its suit is unseen), else low
  from the shortest side suit when holding trumps (to trump it later), else low from the
  longest suit. High trumps are kept.
- Follow: the cheapest card that takes the trick (following suit before trumping in);
  if nothing wins, the lowest card, side suits before trumps.
- Dog's life: play the one card on a trick it takes now (or, leading, when it is a sure
  winner or a high trump), else wait; on the last trick it must play.

It reads the view alone and keeps no state.
"""

from __future__ import annotations

from referee.botkit.bot import Bot
from referee.botkit.helpers import beats, can_pass, legal_cards, legal_suits, trick_winner, unseen_cards
from referee.game.cards import Card, Rank, Suit
from referee.game.views import SeatView

HONOURS = {Rank.ACE: 4, Rank.KING: 3, Rank.QUEEN: 2, Rank.JACK: 1}


def suit_score(hand: tuple[Card, ...], suit: Suit) -> int:
    """2 per card of ``suit`` in ``hand`` plus its honours (A=4, K=3, Q=2, J=1)."""
    cards = [card for card in hand if card.suit is suit]
    return 2 * len(cards) + sum(HONOURS.get(card.rank, 0) for card in cards)


def is_master(card: Card, unseen: set[Card]) -> bool:
    """No card of the same suit that could still be out there ranks higher."""
    return not any(other.suit is card.suit and other.rank > card.rank for other in unseen)


class HeuristicBot(Bot):
    """The sample heuristic (module doc) as a bot."""

    name = "heuristic"
    author = "Knockout Whist Referee samples"

    def choose_trump(self, view: SeatView) -> Suit | None:
        options = legal_suits(view)
        suits = [suit for suit in options if suit is not None]
        best = max(suits, key=lambda suit: (suit_score(view.hand, suit), -suit.value))
        aces = sum(card.rank is Rank.ACE for card in view.hand)
        if None in options and suit_score(view.hand, best) < 6 and aces >= 2:
            return None
        return best

    def play(self, view: SeatView) -> Card | None:
        cards = legal_cards(view)
        trump = view.trump
        winning = trick_winner(view.current_trick, trump)
        if can_pass(view):  # the dog's life: one card, choose the trick
            card = cards[0]
            if winning is None:
                strong = (card.suit is trump and card.rank >= Rank.QUEEN) or is_master(card, unseen_cards(view))
                return card if strong else None
            return card if beats(card, winning[1], trump) else None
        if winning is None:
            return self.lead(cards, trump, unseen_cards(view))
        takers = [card for card in cards if beats(card, winning[1], trump)]
        if takers:
            return min(takers, key=lambda card: (card.suit is trump, card.rank))
        return min(cards, key=lambda card: (card.suit is trump, card.rank))

    def lead(self, cards: list[Card], trump: Suit | None, unseen: set[Card]) -> Card:
        """The card to lead from ``cards`` (module doc)."""
        side = [card for card in cards if card.suit is not trump]
        masters = [card for card in side if is_master(card, unseen)]
        if masters:
            return max(masters, key=lambda card: card.rank)
        if not side:  # only trumps: cash a sure winner, else keep the high ones
            top = max(cards, key=lambda card: card.rank)
            return top if is_master(top, unseen) else min(cards, key=lambda card: card.rank)
        length = {suit: sum(card.suit is suit for card in side) for suit in Suit}
        holds_trump = len(side) < len(cards)
        pick_suit = (min if holds_trump else max)({card.suit for card in side}, key=lambda suit: (length[suit], -suit.value))
        return min((card for card in side if card.suit is pick_suit), key=lambda card: card.rank)
