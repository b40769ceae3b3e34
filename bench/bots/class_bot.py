"""A student's bot for the class benchmark (B14): the sample heuristic strategy on the
Python bot kit, thinking ``--think-ms`` ms of CPU before each answer (a strategy that
computes); with ``--strength S`` it plays the heuristic's choice with probability S, else a
random legal card (the tiers of a class, as B7's strategies); with ``--late P`` it sleeps
``--late-s`` seconds, past the time limit, before a share P of its answers (seeded by
``--seed``: a flawed bot that times out now and then).

Run: ``KWHIST_LISTEN=unix:/tmp/class.sock python bench/bots/class_bot.py --think-ms 3``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# the bot kit and the heuristic strategy of this checkout, or of --tree PATH (B14's two trees)
TREE = Path(sys.argv[sys.argv.index("--tree") + 1] if "--tree" in sys.argv else Path(__file__).resolve().parents[2])
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(TREE / "sample_bots" / "python"))

from heuristic_bot import HeuristicBot  # noqa: E402

from referee.botkit import Card, SeatView, Suit, serve  # noqa: E402


class ClassBot(HeuristicBot):
    def __init__(self, think_ms: float, late: float, late_s: float, seed: int, strength: float = 1.0) -> None:
        super().__init__()
        self.think_s = think_ms / 1000
        self.late = late
        self.late_s = late_s
        self.strength = strength
        self.rng = random.Random(seed)
        self.dice = random.Random(seed + 1_000_003)  # the strength's own draws: the late draws stay as they were

    def _think(self) -> None:
        if self.late and self.rng.random() < self.late:
            time.sleep(self.late_s)
        end = time.process_time() + self.think_s
        while time.process_time() < end:
            pass

    def choose_trump(self, view: SeatView) -> Suit | None:
        self._think()
        return super().choose_trump(view)

    def play(self, view: SeatView) -> Card | None:
        self._think()
        if self.strength < 1.0 and len(view.legal) > 1 and self.dice.random() >= self.strength:
            action = self.dice.choice(view.legal)
            return getattr(action, "card", None)
        return super().play(view)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think-ms", type=float, default=1.0)
    parser.add_argument("--late", type=float, default=0.0)
    parser.add_argument("--late-s", type=float, default=1.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strength", type=float, default=1.0, help="the share of decisions played by the heuristic (else a random legal card)")
    parser.add_argument("--tree", default=None, help="the checkout whose bot kit to use (default: this one)")
    args, rest = parser.parse_known_args()
    serve(ClassBot(args.think_ms, args.late, args.late_s, args.seed, args.strength), rest)


if __name__ == "__main__":
    main()
