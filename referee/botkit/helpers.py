"""Small pure helpers for bot authors: what is legal, who is winning the trick, which
cards are still unseen. They read a :class:`SeatView` only.
"""

from __future__ import annotations

from referee.game.cards import CARDS, Card, Suit
from referee.game.views import ChooseTrump, Pass, Play, SeatView, Trick


def legal_cards(view: SeatView) -> list[Card]:
    """The cards this seat may play now, in ``view.legal`` order (empty when trump is asked)."""
    return [action.card for action in view.legal if isinstance(action, Play)]


def can_pass(view: SeatView) -> bool:
    """True when passing is legal: this seat is a dog and it is not the last trick (rules.md R18)."""
    return any(isinstance(action, Pass) for action in view.legal)


def legal_suits(view: SeatView) -> list[Suit | None]:
    """The trump choices offered (rules.md R8); None stands for no trump."""
    return [action.suit for action in view.legal if isinstance(action, ChooseTrump)]


def beats(card: Card, best: Card, trump: Suit | None) -> bool:
    """Whether ``card`` played after ``best`` (the card winning the trick so far) takes
    over the trick (rules.md R13): a higher card of the same suit, or a trump on a non-trump."""
    if card.suit == best.suit:
        return card.rank > best.rank
    return trump is not None and card.suit == trump


def trick_winner(trick: Trick | None, trump: Suit | None) -> tuple[int, Card] | None:
    """The seat and card winning ``trick`` so far (rules.md R13), None if no card is played
    face up yet. A face-down card (docs/rules.md W24) counts once the trick is complete."""
    if trick is None:
        return None
    best: tuple[int, Card] | None = None
    for play in trick.plays:
        if play.card is None or (play.face_down and trick.winner is None):
            continue
        if best is None or beats(play.card, best[1], trump):
            best = (play.seat, play.card)
    return best


def unseen_cards(view: SeatView) -> set[Card]:
    """Cards that are not in this hand, not played this round and not the turn-up: other
    players may hold them, or they were not dealt."""
    unseen = set(CARDS)
    unseen.difference_update(view.hand)
    unseen.discard(view.turn_up)  # None (no turn-up) is never in the set
    for trick in view.completed_tricks:
        unseen.difference_update([play.card for play in trick.plays])
    if view.current_trick is not None:
        unseen.difference_update([play.card for play in view.current_trick.plays])
    return unseen
