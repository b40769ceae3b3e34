"""Row 8: on its 3rd decision of the league's first game (``t01-d1-r1``) it starts printing
512 MiB to stdout and 512 MiB to stderr in a background thread and keeps answering at once;
on the 3rd decision of a later game of the same process it waits for the flood to end first
(so the whole GiB is out before the league ends). The deal's other rotation is another
process's, which prints nothing."""

import sys
import threading

from referee.botkit import Bot, Card, SeatView, Suit, legal_cards, serve

MiB = 1024 * 1024


def flood() -> None:
    block = b"y" * MiB
    for stream in (sys.stdout.buffer, sys.stderr.buffer):
        for _ in range(512):
            stream.write(block)
        stream.flush()


class Flood(Bot):
    name = "flood"

    def __init__(self) -> None:
        self.asked: dict[str, int] = {}
        self.thread: threading.Thread | None = None

    def _tick(self, view: SeatView) -> None:
        count = self.asked[view.game_id] = self.asked.get(view.game_id, 0) + 1
        if count != 3:
            return
        if self.thread is None and view.game_id == "t01-d1-r1":
            self.thread = threading.Thread(target=flood, daemon=True)
            self.thread.start()
        elif self.thread is not None:
            self.thread.join()

    def play(self, view: SeatView) -> Card | None:
        self._tick(view)
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))

    def choose_trump(self, view: SeatView) -> Suit | None:
        self._tick(view)
        return super().choose_trump(view)


serve(Flood())
