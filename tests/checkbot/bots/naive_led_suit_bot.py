"""Reads the led suit from the trick's first play, as a first bot often does, and dies of it
(exit code 1, fault ``crash``) when that play is a dog's pass: the bug of issue 37, met only
when a dog due to lead passes and a normal player plays next. Otherwise: follow suit with
the lowest card, else the lowest card."""

import os
import traceback

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class NaiveLedSuit(Bot):
    name = "naive-led-suit"

    def play(self, view: SeatView) -> Card | None:
        try:
            plays = view.current_trick.plays if view.current_trick is not None else ()
            led = plays[0].card.suit if plays and not plays[0].face_down else None  # type: ignore[union-attr]
        except AttributeError:
            traceback.print_exc()
            os._exit(1)
        cards = legal_cards(view)
        following = [card for card in cards if card.suit == led]
        return min(following or cards, key=lambda card: (card.rank, card.suit))


serve(NaiveLedSuit())
