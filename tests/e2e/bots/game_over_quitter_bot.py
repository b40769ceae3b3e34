"""Plays its lowest legal card, and exits at once when told a game's result (GameOver):
the call fails as the process ends, between two games."""

import os

from referee.botkit import Bot, serve
from referee.botkit.bot import GameSummary
from referee.game.cards import Card, Suit
from referee.game.views import Play, SeatView


class GameOverQuitter(Bot):
    name = "game-over-quitter"

    def play(self, view: SeatView) -> Card | None:
        return next(a.card for a in view.legal if isinstance(a, Play))

    def choose_trump(self, view: SeatView) -> Suit | None:
        return Suit.CLUBS

    def game_over(self, summary: GameSummary) -> None:
        os._exit(0)


serve(GameOverQuitter())
