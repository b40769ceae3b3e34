"""Issue 23: a bot that remembers every deal it has seen. It notes each seat's cards of
round 1 (its own hand, and every card played: in round 1 every card is played), keyed by
the deal (the game id without its rotation) and by hand. At its first decision of a game it
looks its deal up, and its log gets one line: ``MEMORY {"game", "seat", "recognised",
"known": {seat: cards}}``, the cards of other seats it knows from memory. A bot that never
plays a deal it has seen knows nothing beyond its own view: chance."""

import json
import re
import sys

from referee.botkit import Bot, Card, SeatView, Suit, legal_cards, serve


def deal_of(game_id: str) -> str:
    return re.sub(r"-r\d+$", "", game_id)


class Memory(Bot):
    name = "memory"

    def __init__(self) -> None:
        self.round: dict[str, int] = {}  # game -> its current round
        self.cards: dict[str, dict[int, set[str]]] = {}  # game -> seat -> round-1 cards seen
        self.deals: dict[str, dict[int, set[str]]] = {}  # deal -> the same, of the games seen before this one
        self.asked: set[str] = set()

    def observe(self, view: SeatView, events) -> None:  # type: ignore[no-untyped-def]
        game = view.game_id
        seen = self.cards.setdefault(game, {})
        for event in events:
            kind = type(event).__name__
            if kind == "RoundStarted":
                self.round[game] = event.round_number
            elif kind == "CardPlayed" and event.card is not None and self.round.get(game, 1) == 1:
                seen.setdefault(event.seat, set()).add(str(event.card))
        if view.round_number == 1:
            seen.setdefault(view.seat, set()).update(str(card) for card in view.hand)
        if game not in self.asked:
            self.asked.add(game)
            self.first_decision(view)

    def first_decision(self, view: SeatView) -> None:
        for game, seats in self.cards.items():  # every game seen before this one, by deal
            if game != view.game_id:
                merged = self.deals.setdefault(deal_of(game), {})
                for seat, cards in seats.items():
                    merged.setdefault(seat, set()).update(cards)
        hand = {str(card) for card in view.hand}
        memory = self.deals.get(deal_of(view.game_id))
        if memory is None:  # the same hand in a game seen before: the same deal, another rotation
            memory = next((seats for seats in self.deals.values() if len(seats.get(view.seat, ())) >= 3 and seats[view.seat] <= hand), None)
        known = {seat: sorted(cards) for seat, cards in (memory or {}).items() if seat != view.seat and cards}
        line = {"game": view.game_id, "seat": view.seat, "recognised": memory is not None, "known": known}
        print("MEMORY " + json.dumps(line, sort_keys=True), file=sys.stderr, flush=True)

    def play(self, view: SeatView) -> Card | None:
        return max(legal_cards(view), key=lambda card: (card.rank, card.suit))

    def choose_trump(self, view: SeatView) -> Suit | None:
        return super().choose_trump(view)


serve(Memory())
