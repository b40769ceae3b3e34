"""Sample bot: looks ahead by Perfect-Information Monte Carlo (PIMC), as bridge and Skat
programs do, with the bot kit's search (docs/protocol.md, "Looking ahead").

For each decision, until its time is up: deal the cards it cannot see at random,
consistently with everything it has seen (``determinize``); on that deal, try every legal
action and play on with the sample heuristic for every seat (``playout``) to the end of
the next round (who names its trump, and how a dog fares, show there); score the points
this seat then has (``points``: opponents outlasted, the seats still in level).
Answer the action with the best total over the deals: every action meets the same deals.

It spends ``SHARE`` of the request's ``time_left_ms`` (the rest is its margin for a busy
machine and the wire) and checks the clock after each deal.
Run: ``KWHIST_LISTEN=unix:/tmp/search.sock python sample_bots/python/search_bot.py``.
"""

from __future__ import annotations

import random
import time

from referee.botkit import Bot, Card, SeatView, Suit, TimeLeft, serve
from referee.botkit.search import determinize, heuristic, playout, points
from referee.game.views import Action, ChooseTrump, Play

SHARE = 0.5  # of time_left_ms spent searching
NO_LIMIT_MS = 300  # searched when the request sets no limit (time_left_ms = 0)


class SearchBot(Bot):
    name = "search"
    author = "Knockout Whist Referee samples"

    def __init__(self) -> None:
        self.rng = random.Random()
        self.deadline_s = 0.0

    def observe_time_left(self, view: SeatView, time_left: TimeLeft) -> None:
        self.deadline_s = time_left.deadline_s(SHARE, NO_LIMIT_MS)

    def best(self, view: SeatView) -> Action:
        """The legal action with the most points over as many deals as time allows (the
        heuristic's action on a tie, and when there is no time for one deal)."""
        if len(view.legal) == 1:
            return view.legal[0]
        totals = dict.fromkeys(view.legal, 0.0)
        totals[heuristic(view)] = 1e-9
        while time.monotonic() < self.deadline_s:
            deal = determinize(view, self.rng)  # the unseen cards, dealt as everything seen allows
            for action in view.legal:
                state = deal.state()  # the referee's engine at this position, on this deal
                state.apply(view.seat, action)
                playout(state, heuristic, round_only=True)  # this round
                playout(state, heuristic, round_only=True)  # and the next
                totals[action] += points(state, view.seat)
        return max(totals, key=totals.__getitem__)

    def play(self, view: SeatView) -> Card | None:
        action = self.best(view)
        return action.card if isinstance(action, Play) else None  # None: the dog passes

    def choose_trump(self, view: SeatView) -> Suit | None:
        action = self.best(view)
        assert isinstance(action, ChooseTrump)
        return action.suit


if __name__ == "__main__":
    serve(SearchBot())
