"""What the benchmarks share: a realistic decision, the instant bots, a league spec.

Everything goes through the referee's real code: requests are built by
``referee.transport.codec`` from a real game's view, bots are started by
``referee.sandbox.launch``, leagues are run by ``referee.league.run``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import common  # noqa: F401  (puts the repository root on sys.path)

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.game.views import Event, SeatView
from referee.league.pool import BotEntry
from referee.league.run import LeagueSpec
from referee.sandbox import BotProcess, SandboxSettings, launch

# A decision in the middle of round 1 of a 4-player game: 7-card hands, two tricks done,
# the seat second to play to the third trick, with the public events since its last turn.
REQUEST_SEED = 2026
REQUEST_DECISION = 9


def realistic_decision() -> tuple[SeatView, list[Event], int]:
    """(view, events since the seat's previous request, decision number) of a real game."""
    game = Game(4, Rules(), REQUEST_SEED, game_id="bench-t01-d0-r0")
    rng = random.Random(REQUEST_SEED)
    sent = [0, 0, 0, 0]
    for decision in range(REQUEST_DECISION + 1):
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        events = game.events[sent[seat] :]
        sent[seat] = len(game.events)
        if decision == REQUEST_DECISION:
            return view, list(events), decision
        game.apply(seat, rng.choice(view.legal))
    raise AssertionError("unreachable")


def realistic_request() -> pb.DecisionRequest:
    """The ``DecisionRequest`` the referee sends for :func:`realistic_decision`."""
    from referee.transport import codec

    view, events, decision = realistic_decision()
    return codec.view_to_request(view, events, decision, time_left_ms=1000, bank_left_ms=0)


def instant_entry(name: str) -> BotEntry:
    return BotEntry(name=name, command=("python", str(common.INSTANT_BOT)), directory=common.BOTS)


BOT_KINDS = ("instant", "kit", "go")


def bot_entry(name: str, kind: str = "instant") -> BotEntry:
    """A benchmark bot of ``kind``: ``instant`` (bench/bots/instant_bot.py, unary ``Decide``
    only), ``kit`` (the random sample on the Python bot kit, which speaks ``Play`` where the
    kit does) or ``go`` (the Go sample, built by ``make bots``), all of the measured tree."""
    if kind == "kit":
        return BotEntry(name=name, command=("python", str(common.SAMPLE_BOT)), directory=common.SAMPLE_BOT.parent)
    if kind == "go":
        go = common.CODE / "sample_bots" / "go" / "build"
        return BotEntry(name=name, command=(str(go / "kwhist_go_bot"),), directory=go)
    return instant_entry(name)


@contextmanager
def instant_bots(count: int, run_dir: Path, mode: str, first_slot: int = 900) -> Iterator[list[BotProcess]]:
    """``count`` instant bot processes started by the sandbox (``mode``); killed after."""
    processes: list[BotProcess] = []
    try:
        for index in range(count):
            processes.append(
                launch(
                    ("python", str(common.INSTANT_BOT)),
                    name=f"instant-{index}",
                    slot=first_slot + index,
                    bot_dir=common.BOTS,
                    run_dir=run_dir,
                    settings=SandboxSettings(mode=mode),  # type: ignore[arg-type]
                )
            )
        yield processes
    finally:
        for process in processes:
            process.kill()


def league_spec(
    bots: Sequence[str],
    run_dir: Path,
    *,
    mode: str,
    concurrency: int,
    rules: Rules | None = None,
    move_ms: int = 1000,
    kind: str = "instant",
) -> LeagueSpec:
    """A league of bots of ``kind`` (:func:`bot_entry`) named ``bots`` (each a separate
    entry of the same program)."""
    return LeagueSpec(
        name="bench",
        bots=tuple(bot_entry(name, kind) for name in bots),
        rules=rules or Rules(),
        time=TimeControl(move_ms=move_ms),
        faults=FaultPolicy(),
        sandbox=SandboxSettings(mode=mode),  # type: ignore[arg-type]
        concurrency=concurrency,
        run_dir=run_dir,
    )


def machine_busy_s() -> float:
    """Seconds of CPU the whole machine has spent busy (all cores, not idle or waiting for
    I/O) since boot, from ``/proc/stat`` (clock ticks of 1/100 s)."""
    with open("/proc/stat") as stat:
        ticks = [int(value) for value in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / 100


class NullReporter:
    """A league Reporter that only counts and timestamps finished games."""

    def __init__(self) -> None:
        import time

        self._clock = time.perf_counter
        self._process_time = time.process_time
        self.finished: list[float] = []
        self.decisions: list[int] = []
        self.busy: list[float] = []  # the machine's busy CPU time (s, all cores) at each finish
        self.referee_cpu: list[float] = []  # this process's CPU time (s) at each finish
        self.timeouts = 0

    def game_started(self, fixture: object) -> None:
        return None

    def game_finished(self, record: object) -> None:
        self.finished.append(self._clock())
        self.busy.append(machine_busy_s())
        self.referee_cpu.append(self._process_time())
        actions = getattr(record, "actions")
        self.decisions.append(len(actions))
        self.timeouts += sum(1 for action in actions if action.fault == "timeout")
