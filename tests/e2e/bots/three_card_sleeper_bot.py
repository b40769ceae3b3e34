"""A bot that really is slow, now and then: whenever it holds exactly 3 cards it sleeps
1 s before playing (past any deadline of the tests that use it), however often the same
decision is asked; otherwise it plays the lowest legal card at once, even while an
earlier decision still sleeps (so its timeouts do not depend on timing)."""

import time

from referee.botkit import Bot, serve
from referee.game.cards import Card, Suit
from referee.game.views import Play, SeatView

SLEEP_S = 1.0


class ThreeCardSleeper(Bot):
    name = "three-card-sleeper"
    concurrent = True  # the next decision is answered while an earlier one still sleeps

    def play(self, view: SeatView) -> Card | None:
        if len(view.hand) == 3:
            time.sleep(SLEEP_S)
        return min((a.card for a in view.legal if isinstance(a, Play)), key=lambda card: card.rank)

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.SPADES


serve(ThreeCardSleeper())
