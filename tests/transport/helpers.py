"""Shared helpers of the transport tests: bot processes, hand-built views, a game loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.game.cards import Suit, parse_card, parse_cards
from referee.game.rules import Rules
from referee.game.views import ChooseTrump, DecisionKind, Play, SeatStatus, SeatView, Trick, TrickPlay
from tests.conftest import REPO

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"
HELLO_TIMEOUT_S = 60.0  # generous: two shared cores, and `import grpc` is slow


@dataclass
class RunningBot:
    """A bot process started by a test; ``address`` is ``unix:<dir>/<name>.sock``."""

    process: subprocess.Popen[bytes]
    address: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass
class BotLauncher:
    """Starts bot scripts as real processes in ``directory``; :meth:`close` kills them all."""

    directory: Path
    started: list[RunningBot] = field(default_factory=list)

    def start(
        self, script: Path, env: dict[str, str] | None = None, *, use_argv: bool = False, program: Sequence[str] | None = None
    ) -> RunningBot:
        """Run ``program script`` (``program`` defaults to this Python; ``()`` runs ``script`` itself)."""
        index = len(self.started)
        socket = self.directory / f"b{index}.sock"
        address = f"unix:{socket}"
        assert len(str(socket)) < 100, socket
        log = self.directory / f"b{index}.log"
        environ = {key: value for key, value in os.environ.items() if key != "KWHIST_LISTEN"}
        environ.update(env or {})
        args = [*((sys.executable,) if program is None else program), str(script)]
        if use_argv:
            args += ["--listen", address]
        else:
            environ["KWHIST_LISTEN"] = address
        with log.open("wb") as out:
            process = subprocess.Popen(args, env=environ, stdout=out, stderr=subprocess.STDOUT, cwd=self.directory)
        bot = RunningBot(process, address, log)
        self.started.append(bot)
        return bot

    def close(self) -> None:
        for bot in self.started:
            if bot.process.poll() is None:
                bot.process.send_signal(signal.SIGKILL)
            bot.process.wait()


def hand_view(decision: DecisionKind | None = DecisionKind.PLAY, *, game_id: str = "g1", rules: Rules | None = None) -> SeatView:
    """A hand-built round-2 view of seat 1 of 3, asked ``decision``.

    PLAY: trump H, seat 2 (a dog) led 7C, seat 1 holds KC AS 2H and must follow with KC.
    CHOOSE_TRUMP: seat 1 chooses trump; the four suits are legal (no trump too if allowed).
    """
    rules = rules or Rules()
    hand = parse_cards("KC AS 2H")
    if decision is DecisionKind.CHOOSE_TRUMP:
        choices: list[Suit | None] = list(Suit) + ([None] if rules.allow_no_trump else [])
        return SeatView(
            game_id=game_id, seat=1, num_seats=3, rules=rules, status=(SeatStatus.IN,) * 3, dealer=0,
            round_number=2, hand_size=6, trump=None, no_trump=False, turn_up=None, trump_chooser=1, hand=hand,
            current_trick=None, completed_tricks=(), tricks_won=(0, 0, 0), dog_life_used=True,
            decision=decision, legal=tuple(ChooseTrump(suit) for suit in choices),
        )
    return SeatView(
        game_id=game_id, seat=1, num_seats=3, rules=rules, status=(SeatStatus.IN, SeatStatus.IN, SeatStatus.DOG),
        dealer=0, round_number=2, hand_size=6, trump=Suit.HEARTS, no_trump=False, turn_up=None, trump_chooser=0,
        hand=hand, current_trick=Trick(leader=2, plays=(TrickPlay(2, parse_card("7C")),)),
        completed_tricks=(
            Trick(leader=0, plays=(TrickPlay(0, parse_card("AD")), TrickPlay(1, parse_card("3D")), TrickPlay(2, None)), winner=0),
        ),
        tricks_won=(1, 0, 0), dog_life_used=True, decision=decision,
        legal=(Play(parse_card("KC")),) if decision is not None else (),
    )
