"""Shared set-up of the league commands: config -> LeagueSpec, the results store, and
the guard that kills every bot process on Ctrl-C, SIGTERM or an error."""

from __future__ import annotations

import atexit
import os
import contextlib
import dataclasses
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from rich.console import Console

from referee import sandbox
from referee.config import LeagueConfig
from referee.league import LeagueSpec
from referee.pool import BotEntry
from referee.standings import Standings, compute_standings
from referee.store import ResultsStore
from referee.uncertainty import CONFIDENCE


def results_path(config: LeagueConfig, override: Path | None) -> Path:
    if override is not None:
        return override
    if config.league.results:
        return Path(config.league.results)
    return Path("results") / f"{config.league.name}.sqlite"


def league_spec(config: LeagueConfig, console: Console, *, concurrency: int | None = None, results: Path | None = None) -> LeagueSpec:
    """Validate what the config cannot check alone (the sandbox mode on this host) and
    build the runner's spec. Prints the sandbox warning line, if any."""
    settings = config.sandbox_settings()
    mode, warning = sandbox.resolve_mode(settings)
    if warning:
        console.print(f"[yellow]{warning}[/]")
    bots = tuple(
        BotEntry(
            name=bot.name,
            command=tuple(bot.command),
            address=bot.address,
            directory=Path(bot.dir) if bot.dir else Path("."),
            ro_paths=tuple(bot.ro_paths),
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


def open_results(config: LeagueConfig, override: Path | None, *, resume: bool) -> ResultsStore:
    return ResultsStore.open(
        results_path(config, override),
        league=config.league.name,
        fingerprint=config.fingerprint,
        config_text=config.text,
        resume=resume,
    )


def interrupted(error: BaseException) -> bool:
    """True for Ctrl-C, also when trio delivers it inside an exception group."""
    if isinstance(error, BaseExceptionGroup):
        return error.split(KeyboardInterrupt)[0] is not None
    return isinstance(error, KeyboardInterrupt)


@contextlib.contextmanager
def shutdown_guard(console: Console, store: ResultsStore | None = None, *, resumable: bool = True) -> Iterator[None]:
    """Kill every bot process however the block ends; on Ctrl-C or SIGTERM say what was
    kept and raise a plain KeyboardInterrupt. SIGTERM is turned into SIGINT, which trio
    delivers at a safe point."""
    atexit.register(sandbox.kill_all)

    def on_term(signum: int, frame: FrameType | None) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    except BaseException as error:
        if not interrupted(error):
            raise
        sandbox.kill_all()
        if store is not None:
            kept = len(store.finished_game_ids())
            hint = "; continue with --resume" if resumable else ""
            console.print(f"[yellow]interrupted:[/] {kept} finished games are stored in {store.path}{hint}")
        raise KeyboardInterrupt from None
    finally:
        sandbox.kill_all()
        signal.signal(signal.SIGTERM, previous)


def store_standings(store: ResultsStore, spec: LeagueSpec, confidence: float = CONFIDENCE) -> Standings:
    """The standings of every game in ``store``, listing every bot of the league."""
    return compute_standings(
        store.records(),
        bots=[bot.name for bot in spec.bots],
        remote={bot.name for bot in spec.bots if bot.remote},
        confidence=confidence,
    )
