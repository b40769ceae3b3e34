"""A bot-kit bot whose play() raises on the game "boom"; otherwise it plays the first legal card."""

from __future__ import annotations

from referee.botkit import Bot, Card, SeatView, legal_cards, serve


class Raising(Bot):
    name = "raising"
    author = "tests"

    def play(self, view: SeatView) -> Card | None:
        if view.game_id == "boom":
            raise ZeroDivisionError("division by zero in my strategy")
        return legal_cards(view)[0]


if __name__ == "__main__":
    serve(Raising())
