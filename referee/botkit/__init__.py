"""The Python bot kit: write a Knockout Whist bot in a few lines (docs/design.md §4).

    from referee.botkit import Bot, legal_cards, serve

    class Lowest(Bot):
        name = "lowest"
        def play(self, view):
            cards = legal_cards(view)
            return min(cards, key=lambda card: card.rank) if cards else None

    if __name__ == "__main__":
        serve(Lowest())

The kit answers Hello with ``referee.PROTOCOL_VERSION``, turns each request into a
:class:`SeatView` (own hand, public facts, ``view.legal``) and the bot's answer into an
``Action``. Helpers for common questions live in :mod:`referee.botkit.helpers`.

The kit runs in the bot's process: it imports the game's types, the transport's request
decoder, grpc and the generated code, and errors; nothing of the league or the shell (an
import-linter contract).
"""

from referee.botkit.bot import Bot, GameSummary, TimeLeft
from referee.botkit.helpers import can_pass, legal_cards, legal_suits, trick_winner, unseen_cards
from referee.botkit.server import listen_address, serve, start
from referee.game.cards import Card, Rank, Suit
from referee.game.views import DecisionKind, Event, SeatStatus, SeatView, Trick

__all__ = [
    "Bot",
    "Card",
    "DecisionKind",
    "Event",
    "GameSummary",
    "Rank",
    "SeatStatus",
    "SeatView",
    "Suit",
    "TimeLeft",
    "Trick",
    "can_pass",
    "legal_cards",
    "legal_suits",
    "listen_address",
    "serve",
    "start",
    "trick_winner",
    "unseen_cards",
]
