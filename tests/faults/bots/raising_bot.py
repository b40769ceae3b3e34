"""Its play() raises: the bot kit answers gRPC status INTERNAL (fault ``malformed``)."""

from referee.botkit import Bot, Card, SeatView, serve


class Raising(Bot):
    name = "raising"

    def play(self, view: SeatView) -> Card | None:
        raise RuntimeError("my strategy has a bug")


serve(Raising())
