"""Plays its lowest legal card, but its process ends (exit code 5) when it is a dog due to
lead a trick (fault ``crash``): a bug only a dog that leads meets (issue 28)."""

import os

from referee.botkit import Bot, Card, SeatStatus, SeatView, legal_cards, serve


class DogLeadCrash(Bot):
    name = "dog-lead-crash"

    def play(self, view: SeatView) -> Card | None:
        leading = view.current_trick is None or not view.current_trick.plays
        if view.status[view.seat] is SeatStatus.DOG and leading:
            os._exit(5)
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))


serve(DogLeadCrash())
