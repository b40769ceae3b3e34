"""A league's run, kept in its results store so that every surface shows the same progress
(:mod:`referee.league.progress`), also after ``--resume`` and from another process
(``referee serve``).

``meta`` keys (beside the store's own):

- ``plan``: the league's :class:`~referee.league.progress.Plan` (JSON);
- ``seconds_played``: seconds played over every run, saved every few seconds, at every
  movement round and when the run ends;
- ``rounds_started``: movement rounds begun (:mod:`referee.league.budget`);
- ``run``: this run (JSON): ``state`` (``running``, ``finished``, ``interrupted``),
  ``started`` (POSIX s: the command's start), ``seconds_before`` and ``games_before`` (what
  earlier runs played), ``heartbeat`` (POSIX s, every :data:`HEARTBEAT_S` while it runs),
  ``mark`` (games stored and seconds into the run when the steady rate's measure began,
  :func:`~referee.league.progress.steady_rate`), and at the end ``reason`` (a
  :data:`~referee.league.progress.StopReason`), ``line`` and ``ended``.

A run whose heartbeat is older than :data:`STALE_S` is shown as ``stopped``: its referee
was killed or the machine stopped, and nothing said so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

import trio

from referee.league.progress import LeagueProgress, Mark, Plan, State, games_per_second, league_progress, steady_rate
from referee.results.store import ResultsStore

HEARTBEAT_S = 5.0
STALE_S = 60.0


class RunClock:
    """This run of a league: its seconds (``clock``: monotonic s) added to those of earlier
    runs, its state in the store (``wall``: POSIX s, for other processes), its progress.

    Call :meth:`start` before the first game (``at``: the command's start, so that the
    bots' start-up counts), :meth:`round_begins` as each movement round starts and
    :meth:`game_stored` as each game is stored (the steady rate's mark), :meth:`end` when
    the last game is over (also when it is interrupted): the clock stops there. StoreError
    from the store's writes."""

    def __init__(
        self,
        store: ResultsStore,
        plan: Plan,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.plan = plan
        self._clock = clock
        self._wall = wall
        meta = store.meta()
        self.seconds_before = float(meta.get("seconds_played", 0.0) or 0.0)
        self.games_before = store.game_count()
        self.rounds_started = int(meta.get("rounds_started", 0) or 0)  # kept by the movement's rounds
        self._started: float | None = None
        self._stopped: float | None = None  # the session's seconds when the run ended
        self._mark: Mark | None = None
        self._rounds_begun = 0  # movement rounds begun in this run
        self._state: State = "starting"
        self._reason: str | None = None
        self._line: str | None = None
        self._record: dict[str, Any] = {}

    @property
    def started(self) -> bool:
        return self._started is not None

    @property
    def ended(self) -> bool:
        return self._state in ("finished", "interrupted")

    def start(self, at: float | None = None) -> None:
        """Begin this run's clock (from ``at``, a reading of ``clock`` taken earlier, e.g.
        when the command started; default now) and mark the league running (idempotent)."""
        if self._started is not None:
            return
        now_clock = self._clock()
        self._started = now_clock if at is None else min(at, now_clock)
        now = self._wall()
        self._record = {
            "state": "running",
            "started": now - (now_clock - self._started),
            "heartbeat": now,
            "seconds_before": self.seconds_before,
            "games_before": self.games_before,
        }
        self.store.set_meta("plan", json.dumps(self.plan.to_json()))
        self._write()

    def session_s(self) -> float:
        """This run's seconds so far (fixed once it ended)."""
        if self._stopped is not None:
            return self._stopped
        return 0.0 if self._started is None else self._clock() - self._started

    def round_begins(self, done: int) -> None:
        """A movement round begins with ``done`` games stored: the second one of this run
        marks the start of the steady rate (the first started the bots)."""
        self._rounds_begun += 1
        if self._rounds_begun == 2 and self._mark is None:
            self._set_mark(done)

    def game_stored(self, done: int) -> None:
        """A game was stored (``done`` stored now): outside a movement, the first one of
        this run marks the start of the steady rate."""
        if self._mark is None and not self.plan.games_per_round and done > self.games_before:
            self._set_mark(done)

    def _set_mark(self, done: int) -> None:
        self._mark = (done, self.session_s())
        self._record["mark"] = list(self._mark)
        if self._started is not None:
            self._write()

    def seconds_played(self) -> float:
        """Seconds played over every run of the league, this one included."""
        return self.seconds_before + self.session_s()

    def rate(self, done: int | None = None) -> float | None:
        """Games per second over the whole run (:func:`~referee.league.progress.games_per_second`):
        what the budget decides by."""
        done = self.store.game_count() if done is None else done
        return games_per_second(done, self.games_before, self.session_s(), self.seconds_played())

    def steady(self, done: int | None = None) -> float | None:
        """Games per second since the mark (:func:`~referee.league.progress.steady_rate`):
        what the estimates shown use."""
        done = self.store.game_count() if done is None else done
        return steady_rate(done, self._mark, self.session_s())

    def save(self) -> None:
        """Store the seconds played so far and a heartbeat."""
        if self._started is None:
            return
        self.store.set_meta("seconds_played", f"{self.seconds_played():.3f}")
        self._record["heartbeat"] = self._wall()
        self._write()

    def end(self, reason: str, line: str) -> None:
        """The run ended: ``reason`` a StopReason (``"interrupted"`` marks it interrupted,
        anything else finished), ``line`` what the terminal said."""
        if self._started is None:
            self.start()
        if self._stopped is None:
            self._stopped = self.session_s()
        self._state = "interrupted" if reason == "interrupted" else "finished"
        self._reason, self._line = reason, line
        self._record.update(state=self._state, reason=reason, line=line, ended=self._wall())
        self.store.set_meta("seconds_played", f"{self.seconds_played():.3f}")
        self._write()

    async def keep_beating(self) -> None:
        """Save every :data:`HEARTBEAT_S` seconds until cancelled (runs beside the league)."""
        while True:
            await trio.sleep(HEARTBEAT_S)
            self.save()

    def progress(self, done: int | None = None) -> LeagueProgress:
        """The progress now (``done``: games stored, when the caller counts them)."""
        done = self.store.game_count() if done is None else done
        state = self._state
        if state == "starting" and done > self.games_before:
            state = self._state = "running"
        return league_progress(
            self.plan,
            done=done,
            rounds_started=self.rounds_started if self.plan.games_per_round else 0,
            elapsed_s=self.seconds_played(),
            rate=self.steady(done),
            state=state,
            reason=self._reason,
            line=self._line,
        )

    def _write(self) -> None:
        self.store.set_meta("run", json.dumps(self._record))


def stored_progress(meta: Mapping[str, str], done: int, now: float, *, legacy_plan: Plan | None = None) -> LeagueProgress | None:
    """The progress the store's ``meta`` says (``done``: its games, ``now``: POSIX s), as the
    running referee computes it; None for a results file without a run record (written
    before runs were recorded), where ``legacy_plan`` is all that is known."""
    plan = Plan.from_json(_json(meta.get("plan"))) or legacy_plan
    run = _json(meta.get("run"))
    if plan is None or not isinstance(run, dict) or "state" not in run:
        return None
    state: State = run["state"] if run["state"] in ("running", "finished", "interrupted") else "unknown"
    seconds = float(meta.get("seconds_played", 0.0) or 0.0)
    session = 0.0
    games_before = int(run.get("games_before", 0))
    mark = run.get("mark")
    if state == "running" and now - float(run.get("heartbeat", now)) > STALE_S:
        state = "stopped"  # the seconds stay those last saved
    elif state == "running":
        session = max(0.0, now - float(run.get("started", now)))
        seconds = float(run.get("seconds_before", 0.0)) + session
        if done <= games_before:
            state = "starting"
    return league_progress(
        plan,
        done=done,
        rounds_started=int(meta.get("rounds_started", 0)) if plan.games_per_round else 0,
        elapsed_s=seconds,
        rate=steady_rate(done, (int(mark[0]), float(mark[1])) if isinstance(mark, list) and len(mark) == 2 else None, session),
        state=state,
        reason=run.get("reason"),
        line=run.get("line"),
    )


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None
