"""The worker side of a cluster league (docs/cluster.md). Dask runs :func:`check_on_worker`
once when the worker joins a league, then :func:`play_on_worker` once per fixture the
coordinator sends it; a game runs wholly on the worker and its record goes back as JSON.

Each worker process keeps one trio loop on a thread of its own, holding a
:class:`referee.league.pool.BotPool` per league, so the bot processes it starts are reused
across the games it plays, as on one machine (docs/design.md §6). A Dask task thread hands
its fixture to that loop and waits; the game's match loop runs on a thread of its own
(:mod:`referee.league.gamethread`), so time control is measured here, next to the bots.

The check proves the worker can run the league before it takes a game: it resolves the
sandbox mode, unpacks each bot's folder and checks its hash (:mod:`referee.cluster.bundle`),
and starts each bot once. The coordinator owns restarts and withdrawals
(:mod:`referee.league.counts`): a worker's pool counts nothing itself; each game is sent
with the bots withdrawn so far, and its record carries the faults the coordinator counts.
A bot this worker cannot run because of the worker (a sandbox, a runtime or a folder that
is wrong here) is never charged a fault here: the game raises :class:`HostTrouble` and the
coordinator plays it elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
import tempfile
import threading
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from referee.cluster.bundle import BotBundle, BundleMismatch, relocate, unpack
from referee.errors import ConfigError, SandboxError
from referee.league.pool import BotEntry, BotPool, Lease, StartFailure
from referee.league.run import LeagueSpec, play_fixture
from referee.sandbox import SandboxSettings, bwrap_problem, resolve_mode
from referee.schedule.fixture import Fixture

STARTED_TOPIC = "kwhist-game-started"  # Dask event topic: a worker began a game (msg: game id)
SLOTS_PER_LEAGUE = 100_000  # sandbox slots are numbered per process; each league gets its own range
NOT_STARTED = "not started"  # StartFailure.answer when the sandbox could not start the process at all


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


@dataclass(frozen=True)
class BotCheck:
    """One bot's start on a worker: ``started``; else ``why`` (one line) and ``host``: the
    failure is the worker's (its sandbox, runtime or copy of the bot's folder), not the bot's."""

    started: bool
    host: bool = False
    why: str = ""


@dataclass(frozen=True)
class WorkerReport:
    """What a worker's check found: ``mode`` the sandbox mode bots run in there (None when
    it has none), ``warning`` the sandbox's warning there, ``unfit`` why the worker can run
    no bot at all (None when it can), ``bots`` each bot's check."""

    mode: str | None
    warning: str | None = None
    unfit: str | None = None
    bots: dict[str, BotCheck] = field(default_factory=dict)


class HostTrouble(Exception):
    """The worker cannot run ``bot`` (None: any bot) because of the worker, not the bot;
    ``why`` says what (one line). The game was not played; the coordinator plays it elsewhere."""

    def __init__(self, bot: str | None, why: str) -> None:
        super().__init__(bot, why)
        self.bot = bot
        self.why = why

    def __str__(self) -> str:
        return self.why


def check_on_worker(job: LeagueJob, withdrawn: Collection[str] = ()) -> WorkerReport:
    """A Dask task: prepare the league ``job`` on this worker and start each bot once (but
    those ``withdrawn``), keeping the processes for its games. Never raises for a bot or a
    host problem: the report says what failed."""
    return _host().check(job, frozenset(withdrawn))


def play_on_worker(job: LeagueJob, fixture: Fixture, withdrawn: Collection[str] = ()) -> str:
    """A Dask task: play ``fixture`` on this worker, the bots ``withdrawn`` (league-wide, as
    the coordinator decided) played by the referee; its :class:`GameRecord` as JSON text
    (of ``GameRecord.to_json``: one string is cheaper for Dask to size, keep and send than
    nested data). Raises HostTrouble when this worker cannot run one of its bots."""
    return _host().play(job, fixture, frozenset(withdrawn))


def close_league(key: str) -> int:
    """For ``Client.run`` at the end of a league: kill this worker's bot processes of the
    league ``key``; returns how many leagues were closed (0 or 1)."""
    with _lock:
        host = _the_host
    return 0 if host is None else host.close(key)


class _Withdrawn:
    """The worker's view of the league's counts (:class:`referee.league.counts.Counts`):
    the coordinator's decision, sent with each game; failures are counted there, from the
    game's record."""

    def __init__(self) -> None:
        self.names: frozenset[str] = frozenset()

    def is_withdrawn(self, name: str) -> bool:
        return name in self.names

    def count_failure(self, name: str) -> None:
        return None


class _WorkerPool(BotPool):
    """A pool that never charges a bot for this worker's trouble: a bot whose folder failed
    its check here, or whose process the sandbox could not start, raises HostTrouble."""

    def __init__(self, bots: Sequence[BotEntry], *, refused: dict[str, str], first_slot: int, **settings: Any) -> None:
        self.counts = _Withdrawn()
        super().__init__(bots, counts=self.counts, **settings)
        self.refused = refused
        self._slot = first_slot

    async def acquire(self, name: str, deal: Hashable | None = None, *, note: str | None = None) -> Lease | StartFailure | None:
        got = await self.try_acquire(name, deal, note=note)
        if isinstance(got, StartFailure) and got.answer == NOT_STARTED:
            raise HostTrouble(name, got.detail)
        return got

    async def try_acquire(self, name: str, deal: Hashable | None = None, *, note: str | None = None) -> Lease | StartFailure | None:
        """:meth:`acquire`, a host's failure returned as a StartFailure (answer NOT_STARTED)."""
        detail = self.refused.get(name)
        if detail is not None and not self.is_withdrawn(name):
            return StartFailure("startup", detail, answer=NOT_STARTED, ms=0.0)
        try:
            return await super().acquire(name, deal, note=note)
        except (SandboxError, ConfigError, OSError) as error:
            return StartFailure("startup", f"bot {name!r}: {error}", answer=NOT_STARTED, ms=0.0)


@dataclass
class _League:
    spec: LeagueSpec
    pool: _WorkerPool
    report: WorkerReport
    playing: int = 0
    closed: bool = False  # the coordinator ended the league: games still in flight end it here too


@dataclass
class _Host:
    """This worker process's trio loop and its leagues."""

    token: trio.lowlevel.TrioToken
    leagues: dict[str, _League] = field(default_factory=dict)
    opened: int = 0
    lock: trio.Lock = field(default_factory=trio.Lock)

    def check(self, job: LeagueJob, withdrawn: frozenset[str]) -> WorkerReport:
        here = _Here.find()
        return trio.from_thread.run(self._check, job, withdrawn, here, trio_token=self.token)

    def play(self, job: LeagueJob, fixture: Fixture, withdrawn: frozenset[str]) -> str:
        here = _Here.find()  # on the Dask task's thread, where get_worker() works
        here.announce(fixture.game_id)
        return trio.from_thread.run(self._play, job, fixture, withdrawn, here, trio_token=self.token)

    def close(self, key: str) -> int:
        return trio.from_thread.run_sync(self._close, key, trio_token=self.token)

    async def _check(self, job: LeagueJob, withdrawn: frozenset[str], here: _Here) -> WorkerReport:
        league = await self._league(job, here)
        if league.report.unfit is not None:
            return league.report
        league.pool.counts.names = withdrawn
        checks: dict[str, BotCheck] = {}
        limiter = trio.CapacityLimiter(max(1, os.cpu_count() or 1))  # a few starts at a time

        async def start(name: str) -> None:
            async with limiter:
                got = await league.pool.try_acquire(name)
            if isinstance(got, StartFailure):
                checks[name] = BotCheck(False, host=got.answer == NOT_STARTED, why=got.detail)
                return
            if got is not None:
                league.pool.release(got, crashed=False)  # kept for this worker's first game
            checks[name] = BotCheck(True)

        async with trio.open_nursery() as nursery:
            for bot in league.spec.bots:
                if bot.name not in withdrawn:
                    nursery.start_soon(start, bot.name)
        if league.closed:  # the coordinator ended the league while the bots started: none stays
            league.pool.close()
        return replace(league.report, bots={bot.name: checks.get(bot.name, BotCheck(True)) for bot in league.spec.bots})

    async def _play(self, job: LeagueJob, fixture: Fixture, withdrawn: frozenset[str], here: _Here) -> str:
        league = await self._league(job, here)
        if league.report.unfit is not None:
            raise HostTrouble(None, league.report.unfit)
        league.pool.counts.names = withdrawn
        league.playing += 1
        try:
            record = await play_fixture(league.spec, league.pool, fixture)
        except (SandboxError, OSError) as error:
            raise HostTrouble(None, f"{type(error).__name__}: {error}") from None
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


def sandbox_problem(mode: str) -> tuple[str | None, str | None, str | None]:
    """(the mode bots run in here, its warning, why this host cannot run the league's
    ``mode``). On a cluster ``auto`` means bubblewrap on every worker: one league, one
    sandbox for every game (docs/cluster.md)."""
    try:
        resolved, warning = resolve_mode(SandboxSettings(mode=mode))  # type: ignore[arg-type]
    except SandboxError as error:
        return None, None, str(error)
    if mode == "auto" and resolved != "bwrap":
        problem = bwrap_problem() or "bubblewrap cannot run here"
        return None, None, f'{problem}; or set [sandbox] mode = "rlimits" to run the bots without isolation'
    return resolved, warning, None


def _prepare(job: LeagueJob, here: _Here, first_slot: int) -> _League:
    """The sandbox mode here, every bot's folder unpacked and checked; the league's spec
    with this worker's paths, and its pool (on a thread: unpacking and hashing read files)."""
    base = worker_root()
    mode, warning, unfit = sandbox_problem(job.spec.sandbox.mode)
    sandbox = replace(job.spec.sandbox, mode=mode or job.spec.sandbox.mode)  # type: ignore[arg-type]
    bundles = {bundle.name: bundle for bundle in job.bundles}
    bots: list[BotEntry] = []
    refused: dict[str, str] = {}
    for entry in job.spec.bots:
        bundle = bundles.get(entry.name)
        if entry.remote or bundle is None or unfit is not None:
            bots.append(entry)
            continue
        try:
            folder = unpack(bundle, base / "bots")
        except BundleMismatch as error:
            refused[entry.name] = f"{error}: its files changed or were damaged on the way"
            bots.append(entry)
            continue
        except (OSError, tarfile.TarError) as error:
            refused[entry.name] = f"cannot unpack its folder there: {error}"
            bots.append(entry)
            continue
        bots.append(replace(entry, directory=folder, command=relocate(entry.command, bundle.source, folder)))
    spec = replace(job.spec, bots=tuple(bots), sandbox=sandbox, run_dir=base / "runs" / job.key / str(os.getpid()))
    pool = _WorkerPool(
        spec.bots,
        refused=refused,
        first_slot=first_slot,
        run_dir=spec.run_dir,
        sandbox=spec.sandbox,
        time=spec.time,
        max_restarts=spec.faults.max_restarts,
    )
    return _League(spec, pool, WorkerReport(mode, warning, unfit))
