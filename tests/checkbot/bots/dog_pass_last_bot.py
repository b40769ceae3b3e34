"""As a dog it always passes, even on the last trick (fault ``illegal``, rules.md R18);
otherwise its lowest legal card."""

from referee.botkit import Bot, Card, SeatStatus, SeatView, legal_cards, serve


class DogPassLast(Bot):
    name = "dog-pass-last"

    def play(self, view: SeatView) -> Card | None:
        if view.status[view.seat] is SeatStatus.DOG:
            return None
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))


serve(DogPassLast())
