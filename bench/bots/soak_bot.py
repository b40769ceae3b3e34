"""A bot of the soak (B15): the sample heuristic strategy on the Python bot kit, playing
the heuristic's card with probability ``--strength`` (else a random legal card); with
``--misbehave RATE`` it also misbehaves before a share RATE of its decisions, and with
``--exits RATE`` it exits between games after a share RATE of its games.

Everything it does is a function of ``--seed``, the game and the decision (a hash of the
game id, the round, the trick and the hand), never of the clock, the process or the order
of games: a league killed and resumed sees exactly the faults an uninterrupted one sees.

What a misbehaving decision does (one of, by the same hash):

- ``crash``: the process exits at once (a ``crash`` fault; the seat forfeits the game);
- ``hang``: it sleeps for the rest of the game's decisions (``timeout`` faults until the
  seat forfeits; the referee replaces the stuck process);
- ``garbage``: it answers a card it does not hold (``illegal``), or raises (``malformed``);
- ``memory``: it maps memory until the memory limit refuses, then exits (``crash``);
- ``fork``: it starts sleeping processes until the process limit refuses, ends them and
  exits (``crash``);
- ``flood``: it writes 1 MiB to stdout and to stderr, then answers.

Memory and processes end in a crash on purpose: at either limit gRPC's own threads may fail
to start and abort the process, and whether they do is the machine's timing; a crash at
that decision either way keeps the record the same.

Besides, a misbehaving bot stalls 0.5-3 s at each start before it serves (below the
league's ``startup_ms``: no fault), and ``--exits`` ends the process on a game's GameOver,
before it answers (``exit between games``: the referee starts another before the bot's
next game, no fault).

Run: ``KWHIST_LISTEN=unix:/tmp/soak.sock python bench/bots/soak_bot.py --seed 3 --misbehave 0.01``.
"""

from __future__ import annotations

import argparse
import hashlib
import mmap
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

TREE = Path(sys.argv[sys.argv.index("--tree") + 1] if "--tree" in sys.argv else Path(__file__).resolve().parents[2])
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(TREE / "sample_bots" / "python"))

from heuristic_bot import HeuristicBot  # noqa: E402

from referee.botkit import Card, GameSummary, Rank, SeatView, Suit, serve  # noqa: E402

KINDS = ("crash", "hang", "garbage", "memory", "fork", "flood")
CHUNK = 16 << 20  # bytes a step of the memory growth
FLOOD = 1 << 20  # bytes written to each stream


class SoakBot(HeuristicBot):
    def __init__(self, seed: int, strength: float, misbehave: float, exits: float) -> None:
        super().__init__()
        self.seed = seed
        self.strength = strength
        self.misbehave = misbehave
        self.exits = exits
        self.hung: set[str] = set()  # games in which it hangs

    def _draw(self, *key: object) -> random.Random:
        """A generator seeded by ``--seed`` and ``key`` alone."""
        digest = hashlib.sha256(repr((self.seed, *key)).encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def _decision(self, view: SeatView) -> random.Random:
        return self._draw(view.game_id, view.seat, view.round_number, view.trick_number, len(view.hand), str(view.decision))

    def _misbehave(self, view: SeatView, dice: random.Random) -> Card | None:
        """Misbehave before this decision if the dice say so; a card to answer instead of
        the strategy's (``garbage``), else None."""
        if view.game_id in self.hung:
            time.sleep(3600)
        if not self.misbehave or dice.random() >= self.misbehave:
            return None
        kind = dice.choice(KINDS)
        if kind == "crash":
            os._exit(3)
        if kind == "hang":
            self.hung.add(view.game_id)
            time.sleep(3600)
        if kind == "garbage":
            if dice.random() < 0.5:
                raise ValueError("soak: garbage")
            held = set(view.hand)
            return next(Card(rank, suit) for suit in Suit for rank in Rank if Card(rank, suit) not in held)
        if kind == "memory":
            grow_to_the_limit()
            os._exit(4)
        if kind == "fork":
            fork_to_the_limit()
            os._exit(5)
        flood()
        return None

    def choose_trump(self, view: SeatView) -> Suit | None:
        dice = self._decision(view)
        self._misbehave(view, dice)
        return super().choose_trump(view)

    def play(self, view: SeatView) -> Card | None:
        dice = self._decision(view)
        garbage = self._misbehave(view, dice)
        if garbage is not None:
            return garbage
        if self.strength < 1.0 and len(view.legal) > 1 and dice.random() >= self.strength:
            return getattr(dice.choice(view.legal), "card", None)
        return super().play(view)

    def game_over(self, summary: GameSummary) -> None:
        self.hung.discard(summary.game_id)
        if self.exits and self._draw("exit", summary.game_id, summary.seat).random() < self.exits:
            os._exit(0)  # between games: before it answers, so the referee sees it gone


def grow_to_the_limit() -> None:
    """Map private writable memory until the memory limit refuses, then let it all go. The
    pages are committed (what ``RLIMIT_DATA`` counts) but not touched: quick whatever the
    limit, so the answer is never late because of it (a memory cgroup counts only touched
    pages: there it stops at 64 GiB of mappings)."""
    held = []
    try:
        while len(held) < 4096:
            held.append(mmap.mmap(-1, CHUNK, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
    except OSError:
        pass
    finally:
        for chunk in held:
            chunk.close()


def fork_to_the_limit() -> None:
    """Start sleeping processes until the process limit refuses (posix_spawn: no fork
    handlers run in this multi-threaded process), then end them."""
    children: list[subprocess.Popen[bytes]] = []
    try:
        while len(children) < 512:
            children.append(subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL, close_fds=True))
    except OSError:
        pass
    finally:
        for child in children:
            child.send_signal(signal.SIGKILL)
        for child in children:
            child.wait()


def flood() -> None:
    block = b"soak flood " * 1000 + b"\n"
    for stream in (sys.stdout.buffer, sys.stderr.buffer):
        written = 0
        while written < FLOOD:
            stream.write(block)
            written += len(block)
        stream.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strength", type=float, default=1.0, help="the share of decisions played by the heuristic")
    parser.add_argument("--misbehave", type=float, default=0.0, help="the share of decisions (and games) it misbehaves in")
    parser.add_argument("--exits", type=float, default=0.0, help="the share of games after which it exits")
    parser.add_argument("--tree", default=None, help="the checkout whose bot kit to use (default: this one)")
    args, rest = parser.parse_known_args()
    if args.misbehave:
        time.sleep(random.uniform(0.5, 3.0))  # a slow start: never past startup_ms, never in the record
    serve(SoakBot(args.seed, args.strength, args.misbehave, args.exits), rest)


if __name__ == "__main__":
    main()
