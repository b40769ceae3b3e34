"""Before game 1: start each bot once, the way the league will run it, and ask it Hello
(docs/design.md §5, "The host's trouble is never a bot's fault").

- A bot this host cannot run as asked (:class:`~referee.errors.HostError`: its runtime out
  of the sandbox's reach, no sandbox uid free, its log not writable) stops the league before
  it starts: the error is one line naming the bot and the fix (exit code 2). No bot is
  charged for it, and no standings are printed.
- A bot that fails on its own (an import error, a crash, no Hello in time) is named, in one
  line with its last words and its log (:func:`trouble_line`); the league then goes on
  without it, as it would have anyway (it is withdrawn after its restarts).
- A league in which fewer than two bots start cannot play a game that means anything: it
  stops before game 1 (:func:`no_league`).

The check has a pool of its own, with its logs in ``<run_dir>/check/``, and stops every
process it started before the league starts its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.errors import HostError
from referee.league.pool import BotPool, StartFailure
from referee.league.run import LeagueSpec


@dataclass(frozen=True)
class BotTrouble:
    """A bot that did not start: ``reason`` in a few words (its own, untrusted: escape it
    before printing), ``log`` its process's log (None when no process started)."""

    name: str
    reason: str
    log: Path | None = None


async def check_bots(spec: LeagueSpec, started: Callable[[int], object] = lambda done: None) -> list[BotTrouble]:
    """Start every bot of ``spec`` once, all at once, under the league's sandbox and time
    control (a remote bot: connect and ask Hello), then stop them; -> the bots that did not
    start, in the league's order. ``started(done)`` is told how many bots have answered or
    failed so far, as each does (the screen counts them). Raises HostError (of the first
    such bot in the league's order, once every bot was tried) when the host cannot run a
    bot."""
    failures: dict[str, StartFailure | HostError] = {}
    done = 0
    bots = [bot for bot in spec.bots if not bot.human]  # a person's seat starts no process
    async with BotPool(
        bots,
        run_dir=spec.run_dir / "check",
        sandbox=spec.sandbox,
        time=spec.time,
        max_restarts=spec.faults.max_restarts,
        processes_at_once=max(1, len(bots)),
    ) as pool:

        async def start(name: str) -> None:
            nonlocal done
            try:
                got = await pool.acquire(name)
            except HostError as error:
                failures[name] = error
                got = None
            if isinstance(got, StartFailure):
                failures[name] = got
            done += 1
            started(done)

        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(start, bot.name)
    host = [failure for bot in bots if isinstance(failure := failures.get(bot.name), HostError)]
    if host:
        raise host[0]
    troubles = []
    for bot in bots:
        failure = failures.get(bot.name)
        if isinstance(failure, StartFailure):
            troubles.append(BotTrouble(bot.name, failure.reason or failure.detail, failure.log))
    return troubles


def trouble_line(trouble: BotTrouble) -> str:
    """``bot dora: does not start: ModuleNotFoundError: No module named 'sklearn' (log: …)``
    (plain text; the reason is the bot's own)."""
    where = f" (log: {trouble.log})" if trouble.log is not None else ""
    return f"bot {trouble.name}: does not start: {trouble.reason}{where}"


def no_league(troubles: Sequence[BotTrouble], bots: int) -> str | None:
    """Why the league cannot be played at all (fewer than two of its ``bots`` start), in one
    line; None when it can."""
    starting = bots - len(troubles)
    if starting >= 2:
        return None
    return (
        f"no game can be played: {starting} of {bots} bots start{'s' if starting == 1 else ''} "
        "(see the lines above); fix them and run the league again"
    )
