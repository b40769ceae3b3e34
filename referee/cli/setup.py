"""Shared set-up of the league commands: config -> LeagueSpec, the results store, the
guard that kills every bot process on Ctrl-C, SIGTERM or an error, and :func:`run_trio`,
which lets SIGTERM end a run even where SIGINT is ignored (``referee run ... &`` from a
script)."""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import signal
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TypeVar

import trio
from rich.console import Console

from referee import sandbox
from referee.config import LeagueConfig
from referee.errors import Interrupted
from referee.league.botcode import code_fingerprints
from referee.league.pool import BotEntry
from referee.results.store import ResultsStore
from referee.game.records import GameRecord
from referee.league.run import LeagueSpec, Reporter
from referee.league.runstate import RunClock
from referee.schedule.fixture import Fixture
from referee.standings.running import RunningStandings
from referee.standings.table import Standings, compute_standings
from referee.standings.verdicts import Sequential

T = TypeVar("T")


def results_path(config: LeagueConfig, override: Path | None) -> Path:
    if override is not None:
        return override
    if config.league.results:
        return Path(config.league.results)
    return Path("results") / f"{config.league.name}.sqlite"


def league_spec(
    config: LeagueConfig, console: Console, *, concurrency: int | None = None, results: Path | None = None, here: bool = True
) -> LeagueSpec:
    """Validate what the config cannot check alone (the sandbox mode on this host: ``auto``
    without a usable bubblewrap raises SandboxError, :func:`referee.sandbox.league_mode`) and
    build the runner's spec. Prints the sandbox warning line, if any. ``here=False``: the
    games are played elsewhere (a cluster, whose workers each resolve the mode and say so)."""
    settings = config.sandbox
    mode: str = settings.mode
    if here:
        mode, warning = sandbox.league_mode(settings, str(config.source))
        if warning:
            console.print(f"[yellow]{warning}[/]")
    bots = tuple(
        BotEntry(
            name=bot.name,
            command=tuple(bot.command),
            address=bot.address,
            directory=Path(bot.dir) if bot.dir else Path("."),
            ro_paths=tuple(bot.ro_paths),
            human=bot.human,
        )
        for bot in config.bots
    )
    run_dir = results_path(config, results).with_suffix("")
    return LeagueSpec(
        name=config.league.name,
        bots=bots,
        rules=config.rules,
        time=config.time_control(),
        faults=config.fault_policy(),
        sandbox=dataclasses.replace(settings, mode=mode),  # type: ignore[arg-type]
        concurrency=concurrency or config.league.concurrency,
        run_dir=run_dir,
    )


def open_results(config: LeagueConfig, override: Path | None, *, resume: bool, spec: LeagueSpec | None = None) -> ResultsStore:
    """The league's results store. With ``spec``, each bot's code is fingerprinted
    (:mod:`referee.league.botcode`) and a resume refuses bots whose code changed."""
    path = results_path(config, override)
    code = None
    if spec is not None:
        companions = [Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")]
        code = code_fingerprints([bot for bot in spec.bots if not bot.human], exclude=[spec.run_dir, *companions])
    return ResultsStore.open(
        path,
        league=config.league.name,
        fingerprint=config.fingerprint,
        config_text=config.text,
        resume=resume,
        bot_code=code,
    )


def interrupted(error: BaseException) -> bool:
    """True for Ctrl-C, also when trio delivers it inside an exception group."""
    if isinstance(error, BaseExceptionGroup):
        return error.split(KeyboardInterrupt)[0] is not None
    return isinstance(error, KeyboardInterrupt)


@contextlib.contextmanager
def shutdown_guard(
    console: Console,
    store: ResultsStore | None = None,
    *,
    resumable: bool = True,
    summary: Callable[[], None] | None = None,
) -> Iterator[None]:
    """Kill every bot process however the block ends. On Ctrl-C or SIGTERM: print
    ``summary()`` (the standings of the stored games), say once what was kept, and raise
    :class:`~referee.errors.Interrupted` (the command line adds nothing and exits 130).

    SIGTERM is handled as Ctrl-C: inside :func:`run_trio` by trio; elsewhere by this
    guard, even when SIGINT is ignored (a background job of a script)."""
    atexit.register(sandbox.kill_all)

    def on_term(signum: int, frame: FrameType | None) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):  # trio's Ctrl-C handler delivers it at a safe point
            handler(signal.SIGINT, frame)
        else:  # SIGINT ignored or default: no trio handler to defer to
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    except BaseException as error:
        if not interrupted(error):
            raise
        _hurry()
        sandbox.ask_to_stop(sandbox.live_processes())  # Ctrl-C: their grace runs while the summary is printed
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the summary
        if summary is not None:
            summary()
        sandbox.kill_all()  # what is left of their grace, then SIGKILL
        if store is not None:
            kept = len(store.finished_game_ids())
            hint = "; continue with --resume" if resumable else ""
            console.print(f"[yellow]interrupted:[/] {kept} finished games are stored in {store.path}{hint}")
            raise Interrupted from None
        raise KeyboardInterrupt from None
    finally:
        sandbox.kill_all()
        signal.signal(signal.SIGTERM, previous)


def _hurry() -> None:
    """Stopping: ask the machine for this thread's CPU first (a nice of -5, where the
    referee may raise its priority, e.g. as root): on a loaded machine the few tenths of
    a second of CPU the stop needs would otherwise wait for a core many times over. The
    threads it starts from here inherit it. Silently nothing where it is not allowed."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, 0, -5)


def run_trio(main: Callable[[], Awaitable[T]]) -> T:
    """``trio.run(main)``, where SIGTERM ends the run as Ctrl-C does (KeyboardInterrupt,
    after cancelling ``main``): it works even where SIGINT is ignored, e.g. a referee
    started with ``&`` from a script and stopped with ``kill -TERM``."""

    async def with_sigterm() -> T:
        results: list[T] = []

        async def watch() -> None:
            with trio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    raise KeyboardInterrupt

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            results.append(await main())
            nursery.cancel_scope.cancel()
        return results[0]

    # Ctrl-C only at checkpoints: never inside trio's or a game thread's bookkeeping
    return trio.run(with_sigterm, restrict_keyboard_interrupt_to_checkpoints=True)


def store_standings(store: ResultsStore, spec: LeagueSpec, sequential: Sequential | None = None) -> Standings:
    """The standings of every game in ``store``, listing every bot of the league, with the
    verdicts ``sequential`` asks for (default: those kept in the store, see
    :func:`stored_sequential`)."""
    return compute_standings(
        store.played_games(),
        bots=[bot.name for bot in spec.bots],
        remote={bot.name for bot in spec.bots if bot.remote},
        sequential=stored_sequential(store) if sequential is None else sequential,
    )


def stored_sequential(store: ResultsStore) -> Sequential:
    """The verdict settings and decisions kept in ``store`` (``meta``: ``sequential``; the
    defaults for a store without them)."""
    return Sequential.from_text(store.meta().get("sequential"))


class StoreStandings:
    """The standings of a league's store, kept as its games are stored: the stored games
    are read once, then each game the league stores is folded in (:meth:`add`, O(1);
    :mod:`referee.standings.running`). Called as :func:`store_standings` is, it gives the
    same standings; the last ones are kept until a game is added or the verdict settings
    change."""

    def __init__(self, store: ResultsStore, spec: LeagueSpec) -> None:
        self._store = store
        self._spec = spec
        self._running = RunningStandings([bot.name for bot in spec.bots], store.played_games())
        self._remote = {bot.name for bot in spec.bots if bot.remote}
        self._last: tuple[int, str, Standings] | None = None

    def add(self, record: GameRecord) -> None:
        """Fold in a game just stored."""
        self._running.add(record)

    @property
    def games(self) -> int:
        """The games folded in (those stored)."""
        return self._running.games

    def __call__(self, sequential: Sequential | None = None) -> Standings:
        sequential = stored_sequential(self._store) if sequential is None else sequential
        key = (self._running.games, sequential.to_text())
        if self._last is not None and self._last[:2] == key:
            return self._last[2]
        standings = self._running.standings(remote=self._remote, sequential=sequential)
        self._last = (*key, standings)
        return standings


class FeedStandings:
    """A league Reporter that folds each finished (already stored) game into ``standings``,
    tells the league's ``run`` clock (the steady rate's mark), then tells ``reporter``."""

    def __init__(self, reporter: Reporter, standings: StoreStandings, run: RunClock | None = None) -> None:
        self._reporter = reporter
        self._standings = standings
        self._run = run

    def game_started(self, fixture: Fixture) -> None:
        self._reporter.game_started(fixture)

    def game_finished(self, record: GameRecord) -> None:
        self._standings.add(record)
        if self._run is not None:
            self._run.game_stored(self._standings.games)
        self._reporter.game_finished(record)
