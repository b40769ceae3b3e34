"""Plays its lowest legal card; when asked to stop (SIGTERM), it writes a file in the
folder given as argv[1] before it exits, so a test knows it was asked rather than killed."""

import os
import sys
from pathlib import Path

from referee.botkit import Bot, serve
from referee.game.cards import Card, Suit
from referee.game.views import Play, SeatView


class Lowest(Bot):
    name = "asked-to-stop"

    def play(self, view: SeatView) -> Card | None:
        return min((a.card for a in view.legal if isinstance(a, Play)), key=lambda card: card.rank)

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.SPADES


serve(Lowest())
(Path(sys.argv[1]) / f"asked-to-stop-{os.getpid()}").write_text("SIGTERM")
