"""The coordinator's view of its workers (docs/cluster.md): which are there, what each one's
check found, which bots each may run, and which fixture a free worker plays next. No I/O:
:mod:`referee.cluster.runner` feeds it what Dask says and sends what it decides.

Which worker runs which bot:

- a worker whose check found it can run no bot (its sandbox) gets no game;
- a bot whose failure on a worker is the worker's (the sandbox could not start it, its
  folder differs there) gets no game on that worker;
- a bot that starts on one worker but fails on its own on another gets no game on the
  other; a bot that starts on no worker and fails there on its own is broken in itself: its
  games are played anywhere, and its seats get its own faults, as on one machine;
- a bot that no worker can run stops the league (:meth:`Fleet.stuck`), unless some worker
  ran it earlier in this run: then its workers are gone for now (an outage), and the
  league waits for one (:meth:`Fleet.outage`).

Which fixture next (:meth:`Fleet.pick`): the earliest waiting fixture whose bots may all
run on the worker and whose withdrawals are certain: a bot that may still be withdrawn by
the games in flight waits for them, so each game's withdrawals are what playing the games
one after another would give (docs/design.md §5).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from referee.cluster.worker import BotCheck, WorkerReport
from referee.league.counts import LeagueCounts
from referee.schedule.fixture import Fixture


@dataclass
class WorkerState:
    """One worker: ``threads`` games at once; ``report`` its check (None while checking);
    ``playing`` game id -> fixture sent there, not yet back; ``refused`` bot -> why it gets
    no game there; ``said`` lines already printed about it."""

    address: str
    threads: int
    report: WorkerReport | None = None
    playing: dict[str, Fixture] = field(default_factory=dict)
    playing_withdrawn: dict[str, frozenset[str]] = field(default_factory=dict)  # game id -> sent with these withdrawn
    refused: dict[str, str] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)

    @property
    def unfit(self) -> str | None:
        return self.report.unfit if self.report is not None else None

    @property
    def ready(self) -> bool:
        return self.report is not None and self.report.unfit is None

    def free(self) -> int:
        return self.threads - len(self.playing) if self.ready else 0


class Fleet:
    """The workers of one league run, and the games in flight on them."""

    def __init__(self, bots: list[str], remote: frozenset[str] = frozenset()) -> None:
        self.bots = bots
        self.remote = remote
        self.workers: dict[str, WorkerState] = {}
        self.risky: Counter[str] = Counter()  # bot -> games in flight sent with it not withdrawn
        self.proven: set[str] = set()  # bots some worker started in this run (gone or not)

    # --- membership ---------------------------------------------------------------

    def join(self, address: str, threads: int) -> WorkerState:
        state = self.workers[address] = WorkerState(address, max(1, threads))
        return state

    def leave(self, address: str) -> list[Fixture]:
        """The worker is gone: the fixtures it was playing (to play again elsewhere)."""
        state = self.workers.pop(address, None)
        if state is None:
            return []
        lost = list(state.playing.values())
        for fixture in lost:
            self._unrisk(fixture, state.playing_withdrawn.pop(fixture.game_id, frozenset()))
        return lost

    def end_round(self) -> None:
        """The runner's call ends: nothing is in flight any more (a task still out is let
        go of), and a worker not yet checked is checked again next time."""
        for address in [address for address, state in self.workers.items() if state.report is None]:
            del self.workers[address]
        for state in self.workers.values():
            state.playing.clear()
            state.playing_withdrawn.clear()
        self.risky.clear()

    def checked(self, address: str, report: WorkerReport) -> list[str]:
        """Record a worker's check; the new lines to print (about any worker)."""
        state = self.workers.get(address)
        if state is None:
            return []
        state.report = report
        self._refuse()
        if report.unfit is None:
            self.proven |= {name for name, check in report.bots.items() if check.started}
        return self.lines()

    def refuse(self, address: str, bot: str | None, why: str) -> list[str]:
        """The worker cannot run ``bot`` (None: any bot), found while playing; new lines."""
        state = self.workers.get(address)
        if state is None:
            return []
        if bot is None:
            state.report = WorkerReport(None, unfit=why, bots=dict(state.report.bots) if state.report else {})
        else:
            bots = dict(state.report.bots) if state.report else {}
            bots[bot] = BotCheck(False, host=True, why=why)
            previous = state.report or WorkerReport(None)
            state.report = WorkerReport(previous.mode, previous.warning, previous.unfit, bots)
        self._refuse()
        return self.lines()

    @property
    def checking(self) -> bool:
        """Whether a worker's check is still out."""
        return any(state.report is None for state in self.workers.values())

    def capacity(self) -> int:
        return sum(state.threads for state in self.workers.values() if state.ready)

    # --- which bots run where -------------------------------------------------------

    def _refuse(self) -> None:
        started_somewhere = {
            name
            for state in self.workers.values()
            if state.ready and state.report is not None
            for name, check in state.report.bots.items()
            if check.started
        }
        for state in self.workers.values():
            state.refused = {}
            if state.report is None or state.report.unfit is not None:
                continue
            for name, check in state.report.bots.items():
                if check.started:
                    continue
                if check.host or name in started_somewhere or self.checking:
                    state.refused[name] = check.why

    def can_run(self, state: WorkerState, bot: str) -> bool:
        return state.ready and bot not in state.refused

    def stuck(self, bots: set[str]) -> str | None:
        """One line when some of ``bots`` (those of the fixtures still to play) can run on
        no worker although every worker there has been checked; None otherwise (also while
        there is no worker at all: the league waits for one)."""
        if not self.workers or self.checking:
            return None
        if not any(state.ready for state in self.workers.values()):
            reasons = "; ".join(f"worker {address}: {state.unfit}" for address, state in sorted(self.workers.items()))
            return f"no worker can run the league: {reasons}"
        for bot in sorted(bots):
            if not any(self.can_run(state, bot) for state in self.workers.values()):
                reasons = "; ".join(
                    f"worker {address}: {state.unfit or state.refused.get(bot, '?')}"
                    for address, state in sorted(self.workers.items())
                )
                return f"no worker can run bot {bot!r}: {reasons}"
        return None

    def outage(self, bots: set[str]) -> bool:
        """Whether what :meth:`stuck` says about ``bots`` is an outage: every bot it names
        was started by some worker earlier in this run (that worker left), so one may come
        back; False when the workers there never could (a set-up to fix)."""
        if not self.workers or self.checking:
            return True
        if not any(state.ready for state in self.workers.values()):
            return bool(self.proven)
        return all(bot in self.proven for bot in bots if not any(self.can_run(state, bot) for state in self.workers.values()))

    def lines(self) -> list[str]:
        """What is new about each worker since the last call: its sandbox as it joins, and
        why it gets no games, or none of a bot's."""
        out: list[str] = []
        for address, state in sorted(self.workers.items()):
            report = state.report
            if report is None:
                continue
            wanted: list[str] = []
            if report.unfit is not None:
                wanted.append(f"worker {address}: {report.unfit}; no games sent there")
            else:
                started = sum(check.started for check in report.bots.values())
                wanted.append(
                    f"worker {address}: sandbox {report.mode}, {state.threads} {'game' if state.threads == 1 else 'games'} at once, "
                    f"{started} of {len(report.bots)} bots started"
                )
                if report.warning:
                    wanted += [f"worker {address}: {line}" for line in report.warning.splitlines()]
                if not self.checking:  # a bot failing on its own here may yet fail everywhere
                    wanted += [
                        f"worker {address}: bot {bot!r} cannot run there: {why}; its games go to other workers"
                        for bot, why in sorted(state.refused.items())
                    ]
            for line in wanted:
                if line not in state.said:
                    state.said.add(line)
                    out.append(line)
        return out

    # --- which fixture next ---------------------------------------------------------

    def pick(self, state: WorkerState, waiting: dict[str, Fixture], counts: LeagueCounts) -> Fixture | None:
        """The earliest of ``waiting`` (in order) that ``state`` may play now (module
        docstring), or None."""
        for fixture in waiting.values():
            seats = set(fixture.seats)
            if all(self.can_run(state, bot) for bot in seats) and all(self._certain(bot, counts) for bot in seats):
                return fixture
        return None

    def _certain(self, bot: str, counts: LeagueCounts) -> bool:
        """Whether a game sent now would find ``bot`` withdrawn or not whatever the games in
        flight do (each costs it at most one restart)."""
        if bot in self.remote or counts.is_withdrawn(bot):
            return True
        return counts.spent(bot) + self.risky[bot] <= counts.max_restarts

    def send(self, state: WorkerState, fixture: Fixture, withdrawn: frozenset[str]) -> None:
        state.playing[fixture.game_id] = fixture
        state.playing_withdrawn[fixture.game_id] = withdrawn
        for bot in set(fixture.seats) - withdrawn - self.remote:
            self.risky[bot] += 1

    def back(self, address: str, game_id: str) -> Fixture | None:
        """A game came back (played, or to play again): no longer in flight."""
        state = self.workers.get(address)
        if state is None or game_id not in state.playing:
            return None
        fixture = state.playing.pop(game_id)
        self._unrisk(fixture, state.playing_withdrawn.pop(game_id, frozenset()))
        return fixture

    def _unrisk(self, fixture: Fixture, withdrawn: frozenset[str]) -> None:
        for bot in set(fixture.seats) - withdrawn - self.remote:
            self.risky[bot] -= 1
