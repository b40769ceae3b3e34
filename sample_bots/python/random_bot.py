"""Sample bot: plays uniformly at random among the legal actions.

Its random generator is seeded from the game, seat, round, trick and decision kind, so a
rerun of the same game makes the same choices, even after a restart of this process.
Run: ``KWHIST_LISTEN=unix:/tmp/random.sock python sample_bots/python/random_bot.py``.
"""

from __future__ import annotations

import random

from referee.botkit import Bot, Card, SeatView, Suit, can_pass, legal_cards, legal_suits, serve


def _rng(view: SeatView) -> random.Random:
    """A generator for this decision alone: a string seed is hashed the same way in every run."""
    decision = view.decision.value if view.decision is not None else "none"
    return random.Random(f"{view.game_id}/{view.seat}/{view.round_number}/{view.trick_number}/{decision}")


class RandomBot(Bot):
    name = "random"
    author = "Knockout Whist Referee samples"

    def play(self, view: SeatView) -> Card | None:
        choices: list[Card | None] = list(legal_cards(view))
        if can_pass(view):
            choices.append(None)
        return _rng(view).choice(choices)

    def choose_trump(self, view: SeatView) -> Suit | None:
        return _rng(view).choice(legal_suits(view))


if __name__ == "__main__":
    serve(RandomBot())
