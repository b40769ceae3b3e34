"""On its 2nd decision of each game it sleeps 1.5 s and then answers its *highest* legal
card (a reply that arrives after the deadline); otherwise it answers its lowest legal
card at once. ``concurrent``: the next request is answered while the late one sleeps."""

import threading
import time

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class Late(Bot):
    name = "late"
    concurrent = True
    lock = threading.Lock()
    asked: dict[str, int] = {}

    def play(self, view: SeatView) -> Card | None:
        with self.lock:
            count = self.asked[view.game_id] = self.asked.get(view.game_id, 0) + 1
        cards = sorted(legal_cards(view), key=lambda card: (card.rank, card.suit))
        if count == 2:
            time.sleep(1.5)
            return cards[-1]
        return cards[0]


serve(Late())
