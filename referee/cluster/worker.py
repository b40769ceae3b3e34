"""The worker side of a cluster league (docs/cluster.md): Dask runs :func:`play_on_worker`
once per fixture; a game runs wholly on the worker and its record goes back as JSON.

Each worker process keeps one trio loop on a thread of its own, holding a
:class:`referee.league.pool.BotPool` per league, so the bot processes it starts are reused
across the games it plays, as on one machine (docs/design.md §6). A Dask task thread hands
its fixture to that loop and waits; the game's match loop runs on a thread of its own
(:mod:`referee.league.gamethread`), so time control is measured here, next to the bots.

Before a bot's first start on this worker its folder is unpacked and its hash checked
(:mod:`referee.cluster.bundle`); a bot whose hash differs is never started: each of its
seats gets a ``startup`` fault saying why.
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from referee.cluster.bundle import BotBundle, BundleMismatch, relocate, unpack
from referee.league.pool import BotEntry, BotPool, Lease, StartFailure
from referee.league.run import LeagueSpec, play_fixture
from referee.schedule.fixture import Fixture

STARTED_TOPIC = "kwhist-game-started"  # Dask event topic: a worker began a game (msg: game id)
SLOTS_PER_LEAGUE = 100_000  # sandbox slots are numbered per process; each league gets its own range


@dataclass(frozen=True)
class LeagueJob:
    """What every worker needs to play a league's fixtures, sent once per worker.

    ``spec``: the league as on the coordinator (bot folders and run_dir are the
    coordinator's paths; the worker replaces them with its own), with the config's
    ``[sandbox]`` settings (``mode = "auto"`` is resolved on each worker). ``bundles``: one
    per bot started by command. ``key``: names the league run on the workers (hex)."""

    key: str
    spec: LeagueSpec
    bundles: tuple[BotBundle, ...]

    @staticmethod
    def make(spec: LeagueSpec, bundles: Sequence[BotBundle]) -> LeagueJob:
        """A job whose key changes whenever the settings or a bot's files do."""
        shape = repr((spec.name, spec.bots, spec.rules, spec.time, spec.faults, spec.sandbox, [b.sha256 for b in bundles]))
        return LeagueJob(hashlib.sha256(shape.encode()).hexdigest()[:16], spec, tuple(bundles))


def play_on_worker(job: LeagueJob, fixture: Fixture) -> str:
    """A Dask task: play ``fixture`` on this worker; its :class:`GameRecord` as JSON text
    (of ``GameRecord.to_json``: one string is cheaper for Dask to size, keep and send than
    nested data). Raises what :func:`referee.league.run.play_fixture` raises
    (e.g. SandboxError when this worker cannot run the sandbox mode)."""
    return _host().play(job, fixture)


def close_league(key: str) -> int:
    """For ``Client.run`` at the end of a league: kill this worker's bot processes of the
    league ``key``; returns how many leagues were closed (0 or 1)."""
    with _lock:
        host = _the_host
    return 0 if host is None else host.close(key)


class _RefusingPool(BotPool):
    """A pool that never starts the bots whose folder failed its check on this worker."""

    def __init__(self, bots: Sequence[BotEntry], *, refused: Mapping[str, str], first_slot: int, **settings: Any) -> None:
        super().__init__(bots, **settings)
        self._refused = dict(refused)
        self._slot = first_slot

    async def acquire(self, name: str, *, note: str | None = None) -> Lease | StartFailure | None:
        detail = self._refused.get(name)
        if detail is not None:
            return StartFailure("startup", detail, answer="not started", ms=0.0)
        return await super().acquire(name, note=note)


@dataclass
class _League:
    spec: LeagueSpec
    pool: BotPool
    playing: int = 0
    closed: bool = False  # the coordinator ended the league: games still in flight end it here too


@dataclass
class _Host:
    """This worker process's trio loop and its leagues."""

    token: trio.lowlevel.TrioToken
    leagues: dict[str, _League] = field(default_factory=dict)
    opened: int = 0
    lock: trio.Lock = field(default_factory=trio.Lock)

    def play(self, job: LeagueJob, fixture: Fixture) -> str:
        here = _Here.find()  # on the Dask task's thread, where get_worker() works
        here.announce(fixture.game_id)
        return trio.from_thread.run(self._play, job, fixture, here, trio_token=self.token)

    def close(self, key: str) -> int:
        return trio.from_thread.run_sync(self._close, key, trio_token=self.token)

    async def _play(self, job: LeagueJob, fixture: Fixture, here: _Here) -> str:
        league = await self._league(job, here)
        league.playing += 1
        try:
            record = await play_fixture(league.spec, league.pool, fixture)
        finally:
            league.playing -= 1
            if league.closed:
                league.pool.close()  # processes it started after the league was closed
        return json.dumps(record.to_json(), separators=(",", ":"))

    async def _league(self, job: LeagueJob, here: _Here) -> _League:
        async with self.lock:
            league = self.leagues.get(job.key)
            if league is None:
                for key in [key for key, other in self.leagues.items() if other.playing == 0]:
                    self._close(key)  # an idle league of an earlier run: free its processes
                self.opened += 1
                league = await trio.to_thread.run_sync(_prepare, job, here, self.opened * SLOTS_PER_LEAGUE)
                self.leagues[job.key] = league
            return league

    def _close(self, key: str) -> int:
        league = self.leagues.pop(key, None)
        if league is None:
            return 0
        league.closed = True
        league.pool.close()
        return 1


_lock = threading.Lock()
_the_host: _Host | None = None


def _host() -> _Host:
    """This process's host, its trio loop started on first use."""
    global _the_host
    with _lock:
        if _the_host is None:
            _the_host = _start_loop()
        return _the_host


def _start_loop() -> _Host:
    ready = threading.Event()
    made: list[_Host] = []

    async def serve() -> None:
        made.append(_Host(trio.lowlevel.current_trio_token()))
        ready.set()
        await trio.sleep_forever()

    threading.Thread(target=trio.run, args=(serve,), name="referee-cluster-loop", daemon=True).start()
    ready.wait()
    return made[0]


def worker_root() -> Path:
    """Where workers on this machine keep unpacked bots (``bots/<sha256>/``, shared by its
    worker processes of one uid) and bot logs (``runs/<league key>/<pid>/``):
    ``kwhist-worker-<uid>`` in the temporary folder (``$TMPDIR``, else ``/tmp``), outside
    Dask's scratch folder, which a worker removes when it stops."""
    return Path(tempfile.gettempdir()) / f"kwhist-worker-{os.getuid()}"


@dataclass(frozen=True)
class _Here:
    """The Dask worker running this task, and its address (outside a worker, e.g. a direct
    call: none, and no events)."""

    name: str
    worker: Any = None

    @staticmethod
    def find() -> _Here:
        try:
            from distributed import get_worker

            worker = get_worker()
        except (ImportError, ValueError):
            return _Here("this worker")
        return _Here(str(worker.address), worker)

    def announce(self, game_id: str) -> None:
        """Tell the coordinator a game began (Dask's event log)."""
        if self.worker is not None:
            self.worker.log_event(STARTED_TOPIC, game_id)


def _prepare(job: LeagueJob, here: _Here, first_slot: int) -> _League:
    """Unpack and check every bot's folder; the league's spec with this worker's paths,
    and its pool (on a thread: unpacking and hashing read files)."""
    base = worker_root()
    bundles = {bundle.name: bundle for bundle in job.bundles}
    bots: list[BotEntry] = []
    refused: dict[str, str] = {}
    for entry in job.spec.bots:
        bundle = bundles.get(entry.name)
        if entry.remote or bundle is None:
            bots.append(entry)
            continue
        try:
            folder = unpack(bundle, base / "bots")
        except BundleMismatch as error:
            refused[entry.name] = (
                f"bot {entry.name!r} refused on {here.name}: {error}; its files changed or were "
                "damaged on the way: restart the league (--resume keeps the games played)"
            )
            bots.append(entry)
            continue
        except (OSError, tarfile.TarError) as error:
            refused[entry.name] = f"bot {entry.name!r}: cannot unpack its folder on {here.name}: {error}"
            bots.append(entry)
            continue
        bots.append(replace(entry, directory=folder, command=relocate(entry.command, bundle.source, folder)))
    spec = replace(job.spec, bots=tuple(bots), run_dir=base / "runs" / job.key / str(os.getpid()))
    pool = _RefusingPool(
        spec.bots,
        refused=refused,
        first_slot=first_slot,
        run_dir=spec.run_dir,
        sandbox=spec.sandbox,
        time=spec.time,
        max_restarts=spec.faults.max_restarts,
    )
    return _League(spec, pool)
