"""Plays the league's first game (``t01-d1-r1``) properly, then in every later game never
answers its 3rd decision: it writes the file named by argv[1] (so a test knows it hangs)
and sleeps. (By game id, not by its own count of games: the next game, the deal's second
rotation, is another process's first.)"""

import sys
import time
from pathlib import Path

from referee.botkit import Bot, serve
from referee.game.cards import Card, Suit
from referee.game.views import Play, SeatView


class Hanging(Bot):
    name = "hanging"
    asked: dict[str, int] = {}

    def play(self, view: SeatView) -> Card | None:
        count = self.asked.get(view.game_id, 0) + 1
        self.asked[view.game_id] = count
        if count == 3 and view.game_id != "t01-d1-r1":
            Path(sys.argv[1]).write_text(view.game_id)
            time.sleep(3600)
        return next(a.card for a in view.legal if isinstance(a, Play))

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.SPADES


serve(Hanging())
