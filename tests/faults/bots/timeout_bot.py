"""Sleeps ``--sleep-ms`` (default 1500) on every decision, then plays its lowest legal
card (or names the suit it holds most of). Writes ``game over <game id>`` to stderr (its
log) when told a game's result; with ``--concurrent`` it may be told while still sleeping."""

import sys
import time

from referee.botkit import Bot, Card, GameSummary, SeatView, Suit, legal_cards, serve

SLEEP_MS = int(sys.argv[sys.argv.index("--sleep-ms") + 1]) if "--sleep-ms" in sys.argv else 1500


class Slow(Bot):
    name = "slow"
    concurrent = "--concurrent" in sys.argv

    def game_over(self, summary: GameSummary) -> None:
        print(f"game over {summary.game_id}", file=sys.stderr, flush=True)

    def play(self, view: SeatView) -> Card | None:
        time.sleep(SLEEP_MS / 1000)
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))

    def choose_trump(self, view: SeatView) -> Suit | None:
        time.sleep(SLEEP_MS / 1000)
        return super().choose_trump(view)


serve(Slow(), max_workers=32)
