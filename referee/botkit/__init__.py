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

Importing the kit loads only what serving needs. The game's types (``Card``, ``Suit``,
``SeatView``...) are loaded on first use: a bot that names them only in annotations (with
``from __future__ import annotations``; at run time they come with the first view) answers
Hello sooner, while the kit loads them in the background (see :mod:`referee.botkit.server`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from referee.botkit.bot import Bot, GameSummary
from referee.botkit.helpers import can_pass, legal_cards, legal_suits, trick_winner, unseen_cards
from referee.botkit.server import listen_address, serve, start

if TYPE_CHECKING:
    from referee.game.cards import Card, Rank, Suit
    from referee.game.views import DecisionKind, Event, SeatStatus, SeatView, Trick

_LOADED_ON_USE = {
    "Card": "referee.game.cards",
    "Rank": "referee.game.cards",
    "Suit": "referee.game.cards",
    "DecisionKind": "referee.game.views",
    "Event": "referee.game.views",
    "SeatStatus": "referee.game.views",
    "SeatView": "referee.game.views",
    "Trick": "referee.game.views",
}


def __getattr__(name: str) -> object:
    """``referee.botkit.Card`` and the other game types, imported on first use (PEP 562)."""
    module = _LOADED_ON_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
