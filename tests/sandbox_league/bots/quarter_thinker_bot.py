"""A bot that thinks: on every decision it works ``CPU_MS`` (argv[1]) ms of its own CPU time
(its thread's clock, so a busy machine makes it take longer, never shorter), then plays its
lowest legal card; it names the trump it holds most. A quarter of the limit of the test
that runs it (docs/design.md §5, "A loaded machine")."""

from __future__ import annotations

import sys
import time

from referee.botkit import Bot, Card, SeatView, legal_cards, serve

CPU_MS = float(sys.argv[1])


def think() -> None:
    until = time.thread_time() + CPU_MS / 1000
    while time.thread_time() < until:
        pass


class Thinker(Bot):
    name = "thinker"

    def play(self, view: SeatView) -> Card | None:
        think()
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))

    def choose_trump(self, view: SeatView) -> object:
        think()
        return super().choose_trump(view)


serve(Thinker())
