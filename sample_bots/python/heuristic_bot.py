"""Sample bot: a simple card-counting strategy, clearly stronger than random.

The strategy lives in the bot kit, ``referee/botkit/heuristic.py`` (read it there), so that
a bot's look-ahead can play it for every seat (``referee.botkit.search.heuristic``):

- Trump: the suit with the best length + honours score; no trump only with a weak best
  suit and two or more aces (when allowed).
- Lead: a sure winner outside trumps, else low from the shortest side suit when holding
  trumps, else low from the longest suit. High trumps are kept.
- Follow: the cheapest card that takes the trick; if nothing wins, the lowest card.
- Dog's life: play the one card on a trick it takes now, else wait.
Run: ``KWHIST_LISTEN=unix:/tmp/heuristic.sock python sample_bots/python/heuristic_bot.py``.
"""

from __future__ import annotations

from referee.botkit import serve
from referee.botkit.heuristic import HeuristicBot

__all__ = ["HeuristicBot"]

if __name__ == "__main__":
    serve(HeuristicBot())
