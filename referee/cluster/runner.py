"""The coordinator of a cluster league (docs/cluster.md): a :class:`referee.league.run.FixtureRunner`
that sends fixtures to a Dask cluster and gets each game's record back.

Each fixture is one Dask task (:func:`referee.cluster.worker.play_on_worker`); the bots'
folders and the league's settings travel once to each worker. The coordinator (the
``referee run`` process) stores each record as it arrives, in its own results file, and
shows progress as on one machine. A task lost with its worker is run again elsewhere by
Dask; each fixture's record is passed on once, whatever Dask does.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import trio
from distributed import Client, Future, as_completed

from referee.cluster.bundle import BotBundle, bundle_bot
from referee.cluster.worker import STARTED_TOPIC, LeagueJob, close_league, play_on_worker
from referee.errors import RefereeError
from referee.game.records import GameRecord
from referee.league.run import Finished, LeagueSpec, Started
from referee.sandbox import SandboxSettings
from referee.schedule.fixture import Fixture


class ClusterError(RefereeError):
    """The cluster cannot be reached, or a game could not be played on it."""


def connect(address: str, *, timeout_s: float = 30) -> Client:
    """A Dask client of the scheduler at ``address`` (``tcp://host:8786``, ``tls://...``;
    TLS files come from Dask's own configuration). ClusterError when it cannot connect."""
    try:
        return Client(address, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {error} (start one with `dask scheduler`, see docs/cluster.md)"
        ) from None


class ClusterRunner:
    """Plays fixtures on the cluster of ``client``.

    ``sandbox``: the config's ``[sandbox]`` settings, applied on each worker (``mode =
    "auto"`` resolved there). ``shared``: the workers read each bot's folder at the
    coordinator's path (a shared file system) instead of receiving an archive of it; the
    hash is checked either way.
    """

    def __init__(self, client: Client, *, sandbox: SandboxSettings, shared: bool = False, owns_client: bool = False) -> None:
        self.client = client
        self.sandbox = sandbox
        self.shared = shared
        self._owns_client = owns_client
        self._leagues: set[str] = set()  # job keys whose bot processes live on the workers

    @property
    def address(self) -> str:
        """The scheduler's address."""
        return str(self.client.scheduler_info(n_workers=0).get("address", "?"))

    def close(self) -> None:
        """Stop the league's bot processes on every worker (kept between calls, e.g. rounds
        of one league), then close the client if this runner opened it
        (:func:`referee.cluster.open_cluster`)."""
        while self._leagues:
            self._close_league(self._leagues.pop())
        if self._owns_client:
            self.client.close()

    def _close_league(self, key: str) -> None:
        with contextlib.suppress(Exception):
            self.client.run(close_league, key)

    def capacity(self) -> int:
        """Games the cluster plays at once: the sum of its workers' threads (0 when none)."""
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        return sum(int(worker.get("nthreads", 0)) for worker in workers.values())

    def describe(self) -> str:
        """``on the cluster at ADDRESS (N at once)``, or ``(no workers yet)``."""
        capacity = self.capacity()
        return f"on the cluster at {self.address} ({f'{capacity} at once' if capacity else 'no workers yet'})"

    def bundles(self, spec: LeagueSpec) -> list[BotBundle]:
        """Every bot started by command, hashed (and packed unless shared)."""
        return [bundle_bot(bot.name, bot.directory, shared=self.shared) for bot in spec.bots if not bot.remote]

    async def __call__(self, spec: LeagueSpec, fixtures: Sequence[Fixture], started: Started, finished: Finished) -> None:
        """Play ``fixtures`` on the cluster; ``finished`` once per fixture, in the order they end.

        Raises ClusterError when a game fails on the cluster (its worker died too often,
        or the game raised there); the games passed on before it stay passed on. The bot
        processes stay up on the workers for the next call until :meth:`close`; an error or
        cancellation (Ctrl-C) cancels the league's tasks and stops them at once."""
        if not fixtures:
            return
        bundles = await trio.to_thread.run_sync(self.bundles, spec)
        job = LeagueJob.make(replace(spec, sandbox=self.sandbox), bundles)
        by_id = {fixture.game_id: fixture for fixture in fixtures}
        token = trio.lowlevel.current_trio_token()
        run = uuid.uuid4().hex[:8]  # task keys of this run only: never those of a coordinator that died
        with self._events(token, by_id, started), self._tasks(job, run, fixtures) as futures:
            batches = as_completed(futures, loop=self.client.loop, with_results=True, raise_errors=False)
            left = set(by_id)
            while left:
                batch = await trio.to_thread.run_sync(batches.next_batch, abandon_on_cancel=True)
                for future, result in batch:
                    game_id = _game_of(future, job, run)
                    if game_id not in left:
                        continue  # never twice
                    if future.status != "finished":
                        raise ClusterError(f"game {game_id} could not be played on the cluster: {_why(future, result)}")
                    left.discard(game_id)
                    finished(GameRecord.from_json(json.loads(result)))
                    future.release()  # stored: the worker may drop its copy

    @contextlib.contextmanager
    def _tasks(self, job: LeagueJob, run: str, fixtures: Sequence[Fixture]) -> Iterator[list[Future]]:
        """One task per fixture (earlier fixtures first); cancelled however the block ends,
        and the league's bot processes on every worker stopped if it ends by an exception."""
        shipped = self.client.scatter(job, broadcast=True, hash=False)
        futures = [
            self.client.submit(
                play_on_worker, shipped, fixture, key=_task_key(job, run, fixture), priority=-fixture.index, pure=False
            )
            for fixture in fixtures
        ]
        self._leagues.add(job.key)
        try:
            yield futures
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.cancel([*futures, shipped])
            self._leagues.discard(job.key)
            self._close_league(job.key)
            raise
        with contextlib.suppress(Exception):
            self.client.cancel([*futures, shipped])

    @contextlib.contextmanager
    def _events(self, token: trio.lowlevel.TrioToken, by_id: dict[str, Fixture], started: Started) -> Iterator[None]:
        """Call ``started`` on the trio thread when a worker says it began a game."""

        def on_start(game_id: str) -> None:
            fixture = by_id.get(game_id)
            if fixture is not None:
                started(fixture)

        def handler(event: tuple[float, Any]) -> None:  # on the client's event-loop thread
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(on_start, event[1])

        self.client.subscribe_topic(STARTED_TOPIC, handler)
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                self.client.unsubscribe_topic(STARTED_TOPIC)


def _task_key(job: LeagueJob, run: str, fixture: Fixture) -> str:
    return f"kwhist-{job.key}-{run}-{fixture.game_id}"


def _game_of(future: Future, job: LeagueJob, run: str) -> str:
    return str(future.key).removeprefix(f"kwhist-{job.key}-{run}-")


def _why(future: Future, result: object) -> str:
    """One line: why a task did not finish (cancelled, its worker died, or its error)."""
    if future.status == "cancelled":
        return "its task was cancelled (the scheduler restarted or lost it): continue with --resume"
    error = result[1] if isinstance(result, tuple) and len(result) > 1 else result
    if isinstance(error, BaseException):
        name = type(error).__name__
        if name == "KilledWorker":
            return f"every worker that ran it died ({error}): continue with --resume once the workers are up"
        return f"{name}: {error}"
    return str(error)
