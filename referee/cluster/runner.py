"""The coordinator of a cluster league (docs/cluster.md): a :class:`referee.league.run.FixtureRunner`
that sends fixtures to the workers of a Dask cluster and gets each game's record back.

Each worker that joins first proves it can run the league (:func:`check_on_worker`:
sandbox, bots' folders, each bot started once); the coordinator prints what it found, one
line per worker. Then the coordinator sends each worker as many fixtures as it has
threads, one Dask task each (:func:`play_on_worker`), choosing them with
:class:`referee.cluster.fleet.Fleet`: no game goes to a worker that cannot run one of its
bots, and each game carries the bots withdrawn so far, which the coordinator counts from
the records (:mod:`referee.league.counts`). It stores each record as it arrives and shows
progress as on one machine.

Losses: a worker that leaves (or dies) costs the games it was playing, which go to other
workers; each fixture's record is passed on once, whatever Dask does. The scheduler's loss
stops the league with one line (ClusterError). With no worker that can play, the league
waits for one up to :data:`WAIT_FOR_WORKERS_S`, saying so once (a connected worker that
cannot run the league does not end the wait); then it stops with one line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import trio
from distributed import Client, Future

from referee.cluster.bundle import BotBundle, bundle_bot
from referee.cluster.fleet import Fleet, WorkerState
from referee.cluster.worker import (
    STARTED_TOPIC,
    HostTrouble,
    LeagueJob,
    WorkerReport,
    check_on_worker,
    close_league,
    play_on_worker,
    sandbox_problem,
)
from referee.errors import RefereeError
from referee.game.records import GameRecord
from referee.league.counts import LeagueCounts
from referee.league.run import Finished, LeagueSpec, Started
from referee.sandbox import SandboxSettings
from referee.schedule.fixture import Fixture

POLL_S = 0.5  # how often the coordinator asks the scheduler which workers are there
WAIT_FOR_WORKERS_S = 600.0  # how long the league waits while no worker can play (docs/cluster.md)
SCATTER_TIMEOUT_S = 120.0  # the league's bots sent to one worker
RESULT_TIMEOUT_S = 120.0  # a finished game's record fetched from its worker
MAX_LOSSES = 3  # a game whose worker died this many times while playing it stops the league
LOST_ERRORS = frozenset({"KilledWorker", "CommClosedError", "FutureCancelledError", "CancelledError"})  # a task's worker was lost

Say = Callable[[str], None]


class ClusterError(RefereeError):
    """The cluster cannot be reached or was lost, no worker can run the league, or a game
    could not be played on it (one line saying what to do)."""


def connect(address: str, *, timeout_s: float = 30) -> Client:
    """A Dask client of the scheduler at ``address`` (``tcp://host:8786``, ``tls://...``;
    TLS files come from Dask's own configuration, checked first). ClusterError (one line)
    when it cannot connect or TLS is not set up."""
    from referee.cluster.tls import tls_problem

    problem = tls_problem(address)
    if problem is not None:
        raise ClusterError(problem)
    _quiet_dask()
    try:
        return Client(address, timeout=timeout_s, set_as_default=False)
    except Exception as error:  # OSError, TimeoutError, ssl errors, TypeError from a bad TLS setup...
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {type(error).__name__}: {error} "
            "(start one with `dask scheduler`; TLS set-up: docs/cluster.md)"
        ) from None


def _quiet_dask() -> None:
    """Dask's own log on the coordinator says less than our lines, in tracebacks: off."""
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


class ClusterRunner:
    """Plays fixtures on the cluster of ``client``.

    ``sandbox``: the config's ``[sandbox]`` settings, applied on each worker (``mode =
    "auto"`` means bubblewrap there). ``shared``: the workers read each bot's folder at the
    coordinator's path (a shared file system) instead of receiving an archive of it; the
    hash is checked either way. ``say``: prints one line (what each worker's check found,
    workers lost, waiting for workers). ``wait_s``: how long a league waits while no worker
    can play before it stops (:data:`WAIT_FOR_WORKERS_S`).
    """

    def __init__(
        self,
        client: Client,
        *,
        sandbox: SandboxSettings,
        shared: bool = False,
        owns_client: bool = False,
        say: Say | None = None,
        wait_s: float = WAIT_FOR_WORKERS_S,
    ) -> None:
        self.client = client
        self.sandbox = sandbox
        self.shared = shared
        self.wait_s = wait_s
        self.say: Say = say or (lambda line: None)
        self._owns_client = owns_client
        self._leagues: set[str] = set()  # job keys whose bot processes live on the workers
        self._job: LeagueJob | None = None
        self._fleet: Fleet | None = None
        self._shipped: dict[str, Future] = {}  # worker -> the league's job on it
        self._lost = False  # the scheduler is gone: nothing more to ask it

    @property
    def address(self) -> str:
        """The scheduler's address."""
        scheduler = self.client.scheduler
        return str(scheduler.address if scheduler is not None else "?")

    def close(self) -> None:
        """Stop the league's bot processes on every worker (kept between calls, e.g. rounds
        of one league), then close the client if this runner opened it
        (:func:`referee.cluster.open_cluster`)."""
        while self._leagues:
            self._close_league(self._leagues.pop())
        for future in self._shipped.values():
            with contextlib.suppress(Exception):
                future.release()
        self._shipped.clear()
        if self._owns_client:
            with contextlib.suppress(Exception):
                self.client.close(timeout=5)

    def _close_league(self, key: str) -> None:
        if self._lost or self.client.status != "running":
            return
        with contextlib.suppress(Exception):
            self.client.run(close_league, key, wait=True)

    def capacity(self) -> int:
        """Games the cluster can play at once: the threads of its workers whose sandbox can
        run the league (0 when none; each worker's own check comes with its first games)."""
        members = self.members()
        if not members:
            return 0
        try:
            found = self.client.run(sandbox_problem, self.sandbox.mode, workers=list(members), on_error="return")
        except Exception:  # the scheduler or a worker went meanwhile: the league's own look says so
            return 0
        return sum(threads for address, threads in members.items() if _fits(found.get(address)))

    def describe(self) -> str:
        """``on the cluster at ADDRESS (N at once)``, N the threads that can play;
        ``(no workers yet)``, or ``(no worker can play yet)``."""
        joined = bool(self.members())
        capacity = self.capacity() if joined else 0
        shown = f"{capacity} at once" if capacity else "no worker can play yet" if joined else "no workers yet"
        return f"on the cluster at {self.address} ({shown})"

    def members(self) -> dict[str, int]:
        """Worker address -> threads, as the scheduler knows them now (blocking). ClusterError
        when the scheduler is lost."""
        if self.client.status != "running":
            self._lost = True
            raise ClusterError(self._lost_line())
        try:
            info = self.client.scheduler_info(n_workers=-1)
        except Exception as error:
            self._lost = self._lost or self.client.status != "running"
            raise ClusterError(self._lost_line(error)) from None
        return {str(address): int(worker.get("nthreads", 1)) for address, worker in info.get("workers", {}).items()}

    def _lost_line(self, error: BaseException | None = None) -> str:
        why = f" ({type(error).__name__}: {error})" if error is not None else ""
        return (
            f"lost the Dask scheduler at {self.address}{why}; its workers stop with it: start the scheduler "
            "and the workers again, then continue with --resume (the games stored are kept)"
        )

    def bundles(self, spec: LeagueSpec) -> list[BotBundle]:
        """Every bot started by command, hashed (and packed unless shared), once for the
        league; the league's run folder left out. BundleError (one line) when a folder
        cannot be sent."""
        return [
            bundle_bot(bot.name, bot.directory, shared=self.shared, command=bot.command, skip=[spec.run_dir])
            for bot in spec.bots
            if not bot.remote
        ]

    async def _league_job(self, spec: LeagueSpec) -> LeagueJob:
        job = self._job
        if job is None or job.spec != replace(spec, sandbox=self.sandbox):
            bundles = await trio.to_thread.run_sync(self.bundles, spec)
            for bundle in bundles:
                if bundle.vanished:
                    shown = ", ".join(bundle.vanished[:3]) + (", …" if len(bundle.vanished) > 3 else "")
                    self.say(f"bot {bundle.name!r}: {len(bundle.vanished)} files vanished while its folder was read ({shown}); sent without them")
            job = self._job = LeagueJob.make(replace(spec, sandbox=self.sandbox), bundles)
            self._fleet = Fleet([bot.name for bot in spec.bots], frozenset(bot.name for bot in spec.bots if bot.remote))
            for future in self._shipped.values():
                future.release()
            self._shipped.clear()
        return job

    async def __call__(
        self,
        spec: LeagueSpec,
        fixtures: Sequence[Fixture],
        started: Started,
        finished: Finished,
        *,
        counts: LeagueCounts | None = None,
    ) -> None:
        """Play ``fixtures`` on the cluster; ``finished`` once per fixture, in the order they end.

        ``counts``: the league's restarts and withdrawals (one of its own, from none spent,
        when not given), counted from each record as it arrives. Raises ClusterError when a
        game fails on the cluster (the game raised there, or its worker died
        :data:`MAX_LOSSES` times), when no worker can run some bot, or when the scheduler
        is lost; the games passed on before stay passed on. The bot processes stay up on the
        workers for the next call until :meth:`close`; an error or cancellation (Ctrl-C)
        cancels the league's tasks and stops them at once."""
        if not fixtures:
            return
        if counts is None:
            counts = LeagueCounts(spec.faults.max_restarts, remote=[bot.name for bot in spec.bots if bot.remote])
        job = await self._league_job(spec)
        assert self._fleet is not None
        self._leagues.add(job.key)
        play = _Round(self, job, self._fleet, fixtures, started, finished, counts)
        try:
            await play.run()
        except BaseException:
            play.release()
            self._leagues.discard(job.key)
            self._close_league(job.key)
            raise
        play.release()


@dataclass(frozen=True)
class _Sent:
    """A task in flight: ``kind`` "check" or "game", on the worker ``address``."""

    kind: str
    address: str
    game_id: str = ""


class _Round:
    """One call of the runner: the fixtures to play, the tasks in flight, and the loops that
    watch the workers and collect what comes back (all on the trio thread)."""

    def __init__(
        self,
        runner: ClusterRunner,
        job: LeagueJob,
        fleet: Fleet,
        fixtures: Sequence[Fixture],
        started: Started,
        finished: Finished,
        counts: LeagueCounts,
    ) -> None:
        self.runner, self.client, self.job, self.fleet = runner, runner.client, job, fleet
        self.waiting = {fixture.game_id: fixture for fixture in sorted(fixtures, key=lambda fixture: fixture.index)}
        self.by_id = dict(self.waiting)
        self.left = set(self.waiting)
        self.started, self.finished, self.counts = started, finished, counts
        self.futures: dict[Future, _Sent] = {}
        self.losses: Counter[str] = Counter()
        self.run_id = uuid.uuid4().hex[:8]  # task keys of this run only: never those of a coordinator that died
        self.attempts = 0
        self.all_done = trio.Event()
        self.send_done, self.done = trio.open_memory_channel[Future](math.inf)
        self.token: trio.lowlevel.TrioToken | None = None
        self.nursery: trio.Nursery | None = None
        self.waiting_since: float | None = None  # trio time since when no worker can play

    def say(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.runner.say(line)

    async def run(self) -> None:
        self.token = trio.lowlevel.current_trio_token()
        try:
            with self._events():
                async with trio.open_nursery() as nursery:
                    self.nursery = nursery
                    nursery.start_soon(self._watch)
                    nursery.start_soon(self._collect)
                    await self.all_done.wait()
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            found, _rest = group.split(ClusterError)
            if found is None or group.split((KeyboardInterrupt, trio.Cancelled))[0] is not None:
                raise
            raise _first(found) from None
        finally:
            self.fleet.end_round()

    def release(self) -> None:
        """Let go of every task of this round still in flight (the scheduler cancels them)."""
        futures, self.futures = list(self.futures), {}
        if futures and not self.runner._lost:
            with contextlib.suppress(Exception):
                self.client.cancel(futures)
        for future in futures:
            with contextlib.suppress(Exception):
                future.release()

    # --- the workers ----------------------------------------------------------------

    async def _watch(self) -> None:
        while True:
            members = await trio.to_thread.run_sync(self.runner.members)
            for address, threads in members.items():
                if address not in self.fleet.workers:
                    self.fleet.join(address, threads)
                    assert self.nursery is not None
                    self.nursery.start_soon(self._check, address)
                else:
                    self.fleet.workers[address].threads = max(1, threads)
            for address in [address for address in self.fleet.workers if address not in members]:
                self._worker_left(address)
            self._dispatch()
            self._look()
            await trio.sleep(POLL_S)

    def _look(self) -> None:
        """Whether the league can go on; when it cannot, say so once as the wait begins, and
        stop it (ClusterError) once it waited :attr:`ClusterRunner.wait_s`. Called after
        every change: each look at the workers, each check and game that comes back."""
        now = trio.current_time()
        blocked = self._blocked()
        if blocked is None:
            self.waiting_since = None
        elif self.waiting_since is None:
            self.waiting_since = now
            self.runner.say(self._waiting_line(blocked))
        elif now - self.waiting_since >= self.runner.wait_s:
            raise ClusterError(
                f"{blocked or 'no worker joined the scheduler at ' + self.runner.address}; none came in "
                f"{_duration(self.runner.wait_s)}: start workers that can run the league (docs/cluster.md), then continue with --resume"
            )

    def _blocked(self) -> str | None:
        """None while the league can go on (a worker can play, or nothing is left to play);
        else why not ("" while no worker is there or one is being checked). Raises
        ClusterError at once when the workers there never could run it: a set-up to fix."""
        if not self.left:
            return None
        bots = {bot for fixture in self.waiting.values() for bot in fixture.seats}
        line = self.fleet.stuck(bots)
        if line is not None and not self.fleet.outage(bots):
            raise ClusterError(line)
        if line is None and (self.fleet.capacity() > 0 or not self.waiting):
            return None
        return line or ""

    def _waiting_line(self, blocked: str) -> str:
        joined = len(self.fleet.workers)
        wait = f"up to {_duration(self.runner.wait_s)}"
        if blocked:
            return f"{blocked}: waiting {wait} for a worker that can play (a worker that joins is checked first)…"
        if not joined:
            return f"waiting {wait} for workers to join the scheduler at {self.runner.address}…"
        return f"checking {joined} {'worker' if joined == 1 else 'workers'} before their first game (sandbox, bots' files, each bot started once)…"

    async def _check(self, address: str) -> None:
        shipped = self.runner._shipped.get(address)
        if shipped is None:
            try:
                shipped = await trio.to_thread.run_sync(self._ship, address, abandon_on_cancel=True)
            except Exception as error:
                if address in self.fleet.workers:
                    self.say(self.fleet.refuse(address, None, f"could not receive the league's bots ({type(error).__name__}: {error})"))
                return
            if address not in self.fleet.workers:  # it left meanwhile
                shipped.release()
                return
            self.runner._shipped[address] = shipped
        future = self.client.submit(
            check_on_worker,
            shipped,
            self.counts.withdrawn(),
            key=f"kwhist-check-{self.job.key}-{self.run_id}-{address}",
            workers=[address],
            allow_other_workers=False,
            pure=False,
        )
        self._watch_future(future, _Sent("check", address))

    def _ship(self, address: str) -> Future:
        return self.client.scatter(self.job, workers=[address], hash=False, timeout=SCATTER_TIMEOUT_S)

    def _worker_left(self, address: str) -> None:
        state = self.fleet.workers.get(address)
        announced = state is not None and state.report is not None  # a worker still being checked was never named
        lost = self.fleet.leave(address)
        shipped = self.runner._shipped.pop(address, None)
        if shipped is not None:
            with contextlib.suppress(Exception):
                shipped.release()
        for future, sent in list(self.futures.items()):
            if sent.address == address:
                self._forget(future)
        again = [fixture for fixture in lost if fixture.game_id in self.left]
        for fixture in again:
            self.losses[fixture.game_id] += 1
            if self.losses[fixture.game_id] >= MAX_LOSSES:
                raise ClusterError(
                    f"game {fixture.game_id} could not be played on the cluster: every worker that ran it died "
                    f"({self.losses[fixture.game_id]} times): continue with --resume once the workers are up"
                )
            self._wait_again(fixture)
        if announced or again:
            games = f": its {len(again)} games in flight go to other workers" if again else ""
            self.runner.say(f"worker {address} left the cluster{games}")

    # --- the games ------------------------------------------------------------------

    def _dispatch(self) -> None:
        for state in list(self.fleet.workers.values()):
            while state.free() > 0 and self.waiting and state.address in self.runner._shipped:
                fixture = self.fleet.pick(state, self.waiting, self.counts)
                if fixture is None:
                    break
                self._send(state, fixture)

    def _send(self, state: WorkerState, fixture: Fixture) -> None:
        withdrawn = self.counts.withdrawn()
        del self.waiting[fixture.game_id]
        self.fleet.send(state, fixture, withdrawn)
        self.attempts += 1
        try:
            future = self.client.submit(
                play_on_worker,
                self.runner._shipped[state.address],
                fixture,
                withdrawn,
                key=f"kwhist-{self.job.key}-{self.run_id}-{fixture.game_id}-{self.attempts}",
                workers=[state.address],
                allow_other_workers=False,
                priority=-fixture.index,
                pure=False,
            )
        except Exception as error:  # the client closed: the scheduler is gone
            self.runner._lost = True
            raise ClusterError(self.runner._lost_line(error)) from None
        self._watch_future(future, _Sent("game", state.address, fixture.game_id))

    def _wait_again(self, fixture: Fixture) -> None:
        self.waiting[fixture.game_id] = fixture
        self.waiting = dict(sorted(self.waiting.items(), key=lambda item: item[1].index))

    def _watch_future(self, future: Future, sent: _Sent) -> None:
        self.futures[future] = sent
        token, send = self.token, self.send_done
        assert token is not None

        def done(finished: Future) -> None:  # on Dask's callback thread
            with contextlib.suppress(trio.RunFinishedError, trio.ClosedResourceError):
                token.run_sync_soon(send.send_nowait, finished)

        future.add_done_callback(done)

    def _forget(self, future: Future) -> None:
        self.futures.pop(future, None)
        with contextlib.suppress(Exception):
            future.release()

    async def _collect(self) -> None:
        async for future in self.done:
            sent = self.futures.get(future)
            if sent is None:
                continue  # let go of already
            assert self.nursery is not None
            self.nursery.start_soon(self._settle, future, sent)

    async def _settle(self, future: Future, sent: _Sent) -> None:
        status = str(future.status)
        outcome: Any = None
        if status == "finished":
            try:
                outcome = await trio.to_thread.run_sync(
                    lambda: future.result(timeout=RESULT_TIMEOUT_S), abandon_on_cancel=True
                )
            except Exception as error:  # its worker died before the result was fetched
                status, outcome = "lost", error
        elif status == "error":
            try:
                outcome = await trio.to_thread.run_sync(future.exception, abandon_on_cancel=True)
            except Exception as error:
                status, outcome = "lost", error
        if self.futures.pop(future, None) is None:
            return  # let go of meanwhile (its worker left)
        with contextlib.suppress(Exception):
            future.release()
        if sent.kind == "check":
            self._checked(sent.address, status, outcome)
        else:
            self._played(sent, status, outcome)
        self._dispatch()
        self._look()

    def _checked(self, address: str, status: str, outcome: Any) -> None:
        if status == "finished" and isinstance(outcome, WorkerReport):
            self.say(self.fleet.checked(address, outcome))
        elif status != "cancelled":
            self.say(self.fleet.refuse(address, None, f"its check failed ({_why(outcome)})"))

    def _played(self, sent: _Sent, status: str, outcome: Any) -> None:
        fixture = self.fleet.back(sent.address, sent.game_id)
        game_id = sent.game_id
        if game_id not in self.left:
            return  # passed on already: never twice
        if status == "finished":
            self.left.discard(game_id)
            self.waiting.pop(game_id, None)
            record = GameRecord.from_json(json.loads(outcome))
            self.counts.count_record(record)
            self.finished(record)
            if not self.left:
                self.all_done.set()
            return
        if isinstance(outcome, HostTrouble):
            self.say(self.fleet.refuse(sent.address, outcome.bot, outcome.why))
        elif status not in ("cancelled", "lost") and type(outcome).__name__ not in LOST_ERRORS:
            raise ClusterError(f"game {game_id} could not be played on the cluster: {_why(outcome)}")
        if fixture is not None:
            self._wait_again(fixture)

    @contextlib.contextmanager
    def _events(self) -> Iterator[None]:
        """Call ``started`` on the trio thread when a worker says it began a game."""
        token = self.token
        assert token is not None

        def on_start(game_id: str) -> None:
            fixture = self.by_id.get(game_id)
            if fixture is not None and game_id in self.left:
                self.started(fixture)

        def handler(event: tuple[float, Any]) -> None:  # on the client's event-loop thread
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(on_start, event[1])

        with contextlib.suppress(Exception):  # no scheduler: the first look at the workers says so
            self.client.subscribe_topic(STARTED_TOPIC, handler)
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                self.client.unsubscribe_topic(STARTED_TOPIC)


def _fits(found: object) -> bool:
    """Whether a worker's :func:`sandbox_problem` (as ``Client.run`` returned it) found no problem."""
    return isinstance(found, tuple) and len(found) == 3 and found[2] is None


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


def _first(group: BaseException) -> BaseException:
    """The first error of a (nested) exception group."""
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


def _why(error: object) -> str:
    """One line: what an error of a task was."""
    if isinstance(error, BaseException):
        return f"{type(error).__name__}: {error}"
    return str(error)
