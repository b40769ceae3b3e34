"""How long a league runs: the movement format's budget and sequential stop, played round
by round (docs/design.md §7); and the estimate printed before the first game.

A movement league (:mod:`referee.schedule.movement`) plays whole rounds:

- ``games = N``: ``max(1, N // games per round)`` rounds, decided before the first game;
- ``minutes = M``: before each new round, the games per second measured so far in this
  run estimate when the round would end; a round that would end after M minutes (counting
  the time of earlier runs of a resumed league) is not started, so the league stops at a
  round boundary. Round 1 is always played;
- ``stop = "separated"``: also stop, at a round boundary, once the sequential tests of the
  neighbours #1/#2 ... #separate/#separate+1 in the ranking are all decided
  (:mod:`referee.standings.verdicts`, an SPRT at ``margin`` points per game and
  ``confidence``): each pair either ahead by about the margin, or level (closer than it).

**Looks.** Before every round after the first (whatever ``stop`` is), the standings are
looked at once: what the sequential tests decide there is kept, with the round, in the
results store (``meta``: ``sequential``, :class:`referee.standings.verdicts.Sequential`), as is
why the league stopped; the standings shown anywhere later read it, so each asked place gets
its verdict line ("decided after 12 rounds") whether or not the league stopped on it.

**Resume.** The rounds started and the seconds played are kept in the results store
(``meta``: ``rounds_started``, ``seconds_played``; :mod:`referee.league.runstate`). A resumed league first finishes every
round it had started (the fixtures are a pure function of the config, so the same games;
those stored are skipped), then decides on new rounds as above: nothing is replayed, and
no started round is cut short.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from referee.config import LeagueSettings
from referee.league.progress import Plan, StopReason, clock_text
from referee.league.runstate import RunClock
from referee.results.store import ResultsStore
from referee.schedule.fixture import Fixture
from referee.schedule.movement import RoundShape, movement_rounds, round_shape
from referee.standings.table import Standings
from referee.standings.uncertainty import Verdict
from referee.standings.verdicts import Sequential

OPTIMISTIC_GAMES_PER_S = 20.0  # twice the B4 rate on a 2-core machine: "clearly longer" than an hour
HOUR_S = 3600.0


def league_sequential(league: LeagueSettings, stored: str | None = None) -> Sequential:
    """The verdicts' settings of ``league`` (``separate``, ``margin``, ``confidence``) with
    the decisions, rounds and stop reason kept in ``stored`` (the store's ``sequential``
    meta text), if any."""
    kept = Sequential.from_text(stored)
    return replace(kept, separate=league.separate, margin=league.margin, confidence=league.confidence, lesson=league.format == "movement")


def duration_text(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"7.6 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def too_long_warning(games: int, league: LeagueSettings) -> str | None:
    """A warning when a fixed schedule of ``games`` would clearly run longer than an hour
    (even at :data:`OPTIMISTIC_GAMES_PER_S`), naming the budgeted format."""
    seconds = games / OPTIMISTIC_GAMES_PER_S
    if league.format == "movement" or seconds <= HOUR_S:
        return None
    return (
        f"{games:,} games would take more than {duration_text(seconds)} even at {OPTIMISTIC_GAMES_PER_S:.0f} games/s: "
        'for a class, use format = "movement" with a budget (minutes = 50, or games = N); see README "Class-size leagues"'
    )


def movement_line(league: LeagueSettings, shape: RoundShape) -> str:
    """One line: the round's games, and what the budget allows."""
    per_round = shape.games(league.deals)
    per_bot = shape.games_per_bot(league.deals)
    sittings, tables = len(shape.sittings), max(shape.sittings)
    layout = f"{sittings} sitting{'s' if sittings != 1 else ''} of {'up to ' if min(shape.sittings) != tables else ''}{tables} table{'s' if tables != 1 else ''}"
    parts = [f"movement: rounds of {per_round:,} games ({per_bot} per bot, {layout})"]
    if league.games is not None:
        rounds = max(1, league.games // per_round)
        parts.append(f"games = {league.games:,}: {rounds} rounds, {rounds * per_round:,} games")
    if league.minutes is not None:
        parts.append(f"minutes = {league.minutes:g}: as many rounds as fit")
    if league.stop == "separated":
        pairs = ", ".join(f"#{place}/#{place + 1}" for place in range(1, league.separate + 1))
        parts.append(f"or until {pairs} are decided at {league.confidence:.0%} (ahead by {league.margin:g} pts/g, or level)")
    return "; ".join(parts)


def movement_plan(league: LeagueSettings, shape: RoundShape) -> Plan:
    """The league's :class:`~referee.league.progress.Plan`: its rounds' games and budget."""
    per_round = shape.games(league.deals)
    return Plan(
        games_per_round=per_round,
        max_rounds=None if league.games is None else max(1, league.games // per_round),
        minutes=league.minutes,
        may_stop_early=league.stop == "separated",
    )


@dataclass
class MovementRounds:
    """The rounds of a movement league (implements ``referee.league.run.Rounds``); see the
    module doc. ``standings(sequential)`` computes the standings of the store with those
    verdict settings and kept decisions; ``say`` prints one line (why the league stopped);
    ``clock`` is in s; ``run`` the league's run (its seconds over every run; made from
    ``clock`` when not given)."""

    league: LeagueSettings
    bot_names: Sequence[str]
    store: ResultsStore
    standings: Callable[[Sequential], Standings]
    say: Callable[[str], None]
    clock: Callable[[], float] = time.monotonic
    on_round: Callable[[int], None] = lambda number: None  # told the number (1-based) of each round it starts
    run: RunClock | None = None
    shape: RoundShape = field(init=False)
    stopped: str | None = field(init=False, default=None)  # the stop line
    stop_reason: StopReason | None = field(init=False, default=None)
    sequential: Sequential = field(init=False)

    def __post_init__(self) -> None:
        self.shape = round_shape(len(self.bot_names), self.league.table_size)
        if self.run is None:
            self.run = RunClock(self.store, self.plan, clock=self.clock)
        self._started = self.run.rounds_started
        self.sequential = league_sequential(self.league, self.store.meta().get("sequential"))
        self._next = 0
        self._rounds: Iterator[list[Fixture]] = movement_rounds(self.bot_names, self.league.table_size, self.league.deals, self.league.seed)

    @property
    def plan(self) -> Plan:
        return movement_plan(self.league, self.shape)

    @property
    def clock_of_run(self) -> RunClock:
        assert self.run is not None
        return self.run

    @property
    def games_per_round(self) -> int:
        return self.shape.games(self.league.deals)

    @property
    def rounds_started(self) -> int:
        return self._started

    def planned_games(self) -> int | None:
        """The games of the whole league when the budget fixes them (``games`` only)."""
        if self.league.games is None or self.league.minutes is not None or self.league.stop != "budget":
            return None
        return max(1, self.league.games // self.games_per_round) * self.games_per_round

    def seconds_played(self) -> float:
        return self.clock_of_run.seconds_played()

    def save_time(self) -> None:
        """Store the seconds played so far (also call it when the league is interrupted)."""
        self.clock_of_run.save()

    def next_round(self) -> list[Fixture] | None:
        run = self.clock_of_run
        run.start()
        number = self._next
        if number > 0:
            self.save_time()
        if number >= self._started:
            stop = self._stop_reason(number)
            if stop is not None:
                self.stop_reason, self.stopped = stop
                self.say(self.stopped)
                return None
            self._started = number + 1
            run.rounds_started = self._started
            self.store.set_meta("rounds_started", str(self._started))
            self.on_round(self._started)
        run.round_begins(self.store.game_count())
        self._next += 1
        return next(self._rounds)

    def _stop_reason(self, number: int) -> tuple[StopReason, str] | None:
        """Why round ``number`` (0-based, not yet started) should not start, and the line
        saying so; None when it should. Looks at the standings first (module doc)."""
        if number == 0:
            return None
        standings = self._look(number)
        done = number * self.games_per_round
        budget = self._budget_reason(number, done)
        if budget is not None:
            self._keep(replace(self.sequential, stopped=budget[0]))
            return budget
        verdicts = standings.verdicts
        if self.league.stop == "separated" and verdicts.pairs and all(pair.verdict is not Verdict.OPEN for pair in verdicts.pairs):
            self._keep(replace(self.sequential, stopped="decided"))
            lines = "; ".join(pair.text() for pair in verdicts.pairs)
            return "decided", f"decided after {_rounds(number)}, {done:,} games: {lines} (sequential test at {self.league.confidence:.0%})"
        return None

    def _look(self, number: int) -> Standings:
        """The standings after ``number`` rounds; keeps (and stores) what their tests decided."""
        standings = self.standings(replace(self.sequential, rounds=number, stopped=None))
        self._keep(replace(self.sequential, rounds=number, decided=standings.verdicts.decisions()))
        return standings

    def _keep(self, sequential: Sequential) -> None:
        self.sequential = sequential
        self.store.set_meta("sequential", sequential.to_text())

    def _budget_reason(self, number: int, done: int) -> tuple[StopReason, str] | None:
        """(why, the line to say) when the budget ends the league before round ``number``."""
        league = self.league
        if league.games is not None and done + self.games_per_round > league.games:
            return "games budget", f"budget reached: {_rounds(number)}, {done:,} games (games = {league.games:,})"
        if league.minutes is not None:
            rate = self.clock_of_run.rate()
            if rate:
                played = self.seconds_played()
                ends = played + self.games_per_round / rate
                if ends > league.minutes * 60:
                    return "time budget", (
                        f"time budget reached: {_rounds(number)}, {done:,} games; "
                        f"round {number + 1} would end at {clock_text(math.ceil(ends))}, past the {clock_text(league.minutes * 60)} budget "
                        f"({rate:.1f} games/s)"
                    )
        return None


def _rounds(number: int) -> str:
    return f"{number} round{'s' if number != 1 else ''}"
