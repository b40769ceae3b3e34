"""Shared by the bots here: a bot that plays its lowest legal card (and names the trump
it holds most) and calls ``misbehave(view)`` on its 3rd decision (``AT``) of every game,
so the league has started properly before anything goes wrong. Whatever ``misbehave``
returns is ignored; the bot then answers as usual."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"  # a bot that forks gets plain fork(): no gRPC threads in the child

from referee.botkit import Bot, Card, SeatView, Suit, legal_cards, serve  # noqa: E402

AT = 3


class OnThird(Bot):
    concurrent = False

    def __init__(self, name: str, misbehave: Callable[[SeatView], object]) -> None:
        self.name = name
        self.misbehave = misbehave
        self.decisions: dict[str, int] = {}  # per game

    def _tick(self, view: SeatView) -> None:
        count = self.decisions[view.game_id] = self.decisions.get(view.game_id, 0) + 1
        if count == AT:
            print(f"{self.name}: misbehaving on decision {AT} of game {view.game_id}", file=sys.stderr, flush=True)
            self.misbehave(view)

    def play(self, view: SeatView) -> Card | None:
        self._tick(view)
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))

    def choose_trump(self, view: SeatView) -> Suit | None:
        self._tick(view)
        return super().choose_trump(view)


def serve_misbehaving(name: str, misbehave: Callable[[SeatView], object]) -> None:
    serve(OnThird(name, misbehave))
