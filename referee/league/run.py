"""A league night under trio: fixtures run concurrently, each finished game stored at once.

The pool starts and reuses bot processes; the store keeps every finished game in its own
transaction, so an interrupted league loses only the games in progress (docs/design.md §7).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

import trio

from referee.errors import ConfigError
from referee.game.cards import Card
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.gamelog import build_record
from referee.game.records import FaultRecord, GameRecord, cut
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.league.counts import LeagueCounts
from referee.league.gamethread import Stopped, run_game_thread
from referee.league.human import HumanSeat, People
from referee.league.match import MatchResult, Player, play_match
from referee.league.lateness import HeldUp
from referee.league.pacing import Pacer
from referee.league.pool import BotEntry, BotPool, Lease, StartFailure
from referee.league.tracelog import TraceLog
from referee.results.store import ResultsStore
from referee.sandbox import SandboxSettings
from referee.schedule.fixture import Fixture


MAX_TABLE = 7  # seats at a table (rules.md): bot processes a game holds at once, at most


class Rounds(Protocol):
    """A schedule played round by round (the movement format): ``next_round()`` gives the
    fixtures of the next round, or None when the league stops there (budget spent, top
    places separated). Called before the first round and after each, never while games
    are being played."""

    def next_round(self) -> Sequence[Fixture] | None: ...


class _AllAtOnce:
    """A fixed schedule as one round."""

    def __init__(self, fixtures: Sequence[Fixture]) -> None:
        self._fixtures: Sequence[Fixture] | None = fixtures

    def next_round(self) -> Sequence[Fixture] | None:
        fixtures, self._fixtures = self._fixtures, None
        return fixtures


class Reporter(Protocol):
    """What the league tells the screen (``referee.report`` implements it)."""

    def game_started(self, fixture: Fixture) -> None: ...
    def game_finished(self, record: GameRecord) -> None: ...


@dataclass(frozen=True)
class LeagueSpec:
    """Everything the runner needs, already validated (built from a config by the CLI)."""

    name: str
    bots: tuple[BotEntry, ...]
    rules: Rules
    time: TimeControl
    faults: FaultPolicy
    sandbox: SandboxSettings
    concurrency: int
    run_dir: Path  # per-bot logs and private directories live here


Started = Callable[[Fixture], None]
Finished = Callable[[GameRecord], None]


class FixtureRunner(Protocol):
    """Plays fixtures somewhere (here: :func:`run_fixtures`; on a Dask cluster:
    ``referee.cluster``): calls ``started`` as each game begins and ``finished`` with each
    finished record, exactly once per fixture, on the trio thread; returns when all are done.
    ``counts``: the league's restarts and withdrawals (:mod:`referee.league.counts`), which
    the runner keeps: it counts each game's restarts into them and withdraws by them."""

    async def __call__(
        self, spec: LeagueSpec, fixtures: Sequence[Fixture], started: Started, finished: Finished, *, counts: LeagueCounts
    ) -> None: ...


PlayFixtures = Callable[[LeagueSpec, Sequence[Fixture], Started, Finished], Awaitable[None]]


async def run_league(
    spec: LeagueSpec,
    fixtures: Sequence[Fixture] | Rounds,
    store: ResultsStore,
    reporter: Reporter,
    runner: FixtureRunner | None = None,
    *,
    over: Callable[[], None] = lambda: None,
    people: People | None = None,
) -> None:
    """Play every fixture not yet in ``store``, up to ``spec.concurrency`` at once; with
    :class:`Rounds`, round after round (each round finished before the next is asked for).
    ``runner`` plays them elsewhere (a Dask cluster); by default they are played here, the
    bot processes kept from one round to the next. Each game is stored as it ends.
    ``over()`` is called once the last game is stored and no round follows, before the bot
    processes are stopped (the screen says so, the league's clock stops there). ``people``:
    the league's seats played by people (:mod:`referee.league.human`), played here only.

    Bot faults never stop the league. Cancellation (Ctrl-C) kills every bot process;
    games already stored stay stored. Restarts and withdrawals are the league's
    (:class:`LeagueCounts`), a resumed league's from its stored games.
    """
    rounds = _AllAtOnce(fixtures) if isinstance(fixtures, Sequence) else fixtures
    remote = [bot.name for bot in spec.bots if bot.remote]
    counts = LeagueCounts(spec.faults.max_restarts, store.restart_counts(), remote=remote)
    if runner is not None:
        if people is not None:
            raise ConfigError("a league with people at its tables is played on this machine, not on a cluster")
        while (batch := rounds.next_round()) is not None:
            await play_round(partial(runner, counts=counts), spec, batch, store, reporter)
        over()
        return
    async with BotPool(
        spec.bots,
        run_dir=spec.run_dir,
        sandbox=spec.sandbox,
        time=spec.time,
        max_restarts=spec.faults.max_restarts,
        counts=counts,
        processes_at_once=len(spec.bots) * max(spec.concurrency, min(MAX_TABLE, len(spec.bots))),  # the deal rule keeps a process per rotation
    ) as pool:
        pacer = Pacer(spec.concurrency)  # one pace for the whole league, round after round
        while (batch := rounds.next_round()) is not None:
            await play_round(partial(run_fixtures, pool=pool, pacer=pacer, people=people), spec, batch, store, reporter)
        over()


async def play_round(
    runner: PlayFixtures, spec: LeagueSpec, fixtures: Sequence[Fixture], store: ResultsStore, reporter: Reporter
) -> None:
    """Play with ``runner`` every fixture of ``fixtures`` not yet in ``store``, storing each
    finished game at once; returns when all are played."""
    done = store.finished_game_ids()
    todo = [fixture for fixture in fixtures if fixture.game_id not in done]
    if not todo:
        return

    def finished(record: GameRecord) -> None:
        store.save_game(record)
        reporter.game_finished(record)

    await runner(spec, todo, reporter.game_started, finished)


async def run_fixtures(
    spec: LeagueSpec,
    fixtures: Sequence[Fixture],
    started: Started,
    finished: Finished,
    *,
    pool: BotPool,
    pacer: Pacer | None = None,
    people: People | None = None,
) -> None:
    """The local :class:`FixtureRunner` (with ``pool`` bound): up to ``spec.concurrency``
    games at once, fewer while the machine is overloaded (:mod:`referee.league.pacing`)."""
    pacer = pacer or Pacer(spec.concurrency)
    send, receive = trio.open_memory_channel[Fixture](len(fixtures) or 1)
    for fixture in fixtures:
        send.send_nowait(fixture)
    send.close()
    async with trio.open_nursery() as nursery:
        pacing = trio.CancelScope()

        async def keep_pace() -> None:
            with pacing:
                await pacer.keep_pace()

        nursery.start_soon(keep_pace)
        async with trio.open_nursery() as games:
            for _ in range(max(1, min(spec.concurrency, len(fixtures)))):
                games.start_soon(_worker, spec, pool, receive.clone(), started, finished, pacer, people)
        pacing.cancel()
    receive.close()


async def _worker(
    spec: LeagueSpec,
    pool: BotPool,
    fixtures: trio.MemoryReceiveChannel[Fixture],
    started: Started,
    finished: Finished,
    pacer: Pacer,
    people: People | None = None,
) -> None:
    async with fixtures:
        async for fixture in fixtures:
            async with pacer.slot():
                started(fixture)
                finished(await play_fixture(spec, pool, fixture, held=pacer.held, people=people))


async def play_fixture(
    spec: LeagueSpec,
    pool: BotPool,
    fixture: Fixture,
    decks: Mapping[int, Sequence[Card]] | None = None,
    *,
    held: HeldUp | None = None,
    people: People | None = None,
) -> GameRecord:
    """Seat the fixture's bots, play the game, return its record (not yet stored).

    ``decks`` (round number -> 52 cards in deal order) fixes those rounds' decks (a deal
    file, ``referee play --deal``); other rounds are shuffled from the fixture's seed.
    ``held``: the league's record of decisions the machine held up (its pace).
    ``people``: the persons among the fixture's names are seated first (each plays one
    game at a time, :meth:`People.seated`), on their own time control, their pages told
    every move.
    """
    if people is None or not any(name in people for name in fixture.seats):
        return await _play_fixture(spec, pool, fixture, decks, {}, held=held)
    async with people.seated(fixture.game_id, fixture.seats) as persons:
        return await _play_fixture(spec, pool, fixture, decks, persons, people, held=held)


async def _play_fixture(
    spec: LeagueSpec,
    pool: BotPool,
    fixture: Fixture,
    decks: Mapping[int, Sequence[Card]] | None,
    persons: Mapping[int, HumanSeat],
    people: People | None = None,
    *,
    held: HeldUp | None = None,
) -> GameRecord:
    players: list[Player | None] = []
    startup_faults: list[FaultRecord] = []
    leases: list[Lease | None] = []
    withdrawn: list[bool] = []
    for seat, (name, got) in enumerate(zip(fixture.seats, await _seat_all(pool, fixture, skip=persons))):
        if seat in persons:
            players.append(persons[seat])
            leases.append(None)
            withdrawn.append(False)
            continue
        if isinstance(got, StartFailure):
            startup_faults.append(FaultRecord(got.kind, seat, name, None, got.detail, got.request, got.answer, got.ms))
            got = None
        withdrawn.append(got is None and pool.is_withdrawn(name))
        leases.append(got)
        players.append(got)
    game = Game(len(fixture.seats), spec.rules, fixture.seed, game_id=fixture.game_id, first_dealer=fixture.first_dealer, decks=decks)
    crashed_seats: set[int] = set(range(len(leases)))  # if the game is cancelled, start afresh
    trace = TraceLog.for_game(spec.run_dir, fixture.game_id, fixture.seats) if spec.faults.trace else None

    def moved() -> None:  # on the game's thread: each person's page follows the game
        for human in persons.values():
            human.show(game.view(human.seat), game.events)

    def play(stopped: Stopped) -> MatchResult:
        moved()
        return play_match(
            game, players, spec.time, spec.faults, startup_faults=startup_faults, trace=trace, stopped=stopped, held=held,
            seat_time={seat: human.time for seat, human in persons.items()}, moved=moved if persons else None,
        )  # fmt: skip

    try:
        result = await run_game_thread(play, on_stop=partial(_hang_up, leases, people), name=f"game {fixture.game_id}")
        crashed_seats = result.crashed
        pool.count_crashes(fixture.seats[seat] for seat in result.crashed)
        result.faults = [_lead_to_log(fault, leases[fault.seat], fixture.game_id) for fault in result.faults]
        for overload in result.overloads:
            lease = leases[overload.seat]
            if lease is not None:
                lease.note(f"game {fixture.game_id} decision {overload.decision}: {overload.detail}")
        await announce_result(game, leases, result.faults)
    finally:
        if trace is not None:
            trace.close()
        for seat, lease in enumerate(leases):
            if lease is not None:
                pool.release(lease, crashed=seat in crashed_seats)
    return build_record(
        game,
        league=spec.name,
        fixture=fixture.index,
        table=fixture.table,
        deal=fixture.deal,
        rotation=fixture.rotation,
        seats=fixture.seats,
        seed=fixture.seed,
        actions=result.actions,
        faults=result.faults,
        withdrawn=withdrawn,
        forfeits=result.forfeits,
        overloads=result.overloads,
    )


async def _seat_all(pool: BotPool, fixture: Fixture, skip: Collection[int] = ()) -> list[Lease | StartFailure | None]:
    """Every seat's lease (as :meth:`BotPool.acquire` gives it), in seat order (None for the
    seats in ``skip``: people's), the seats acquired at once: a game whose bots need new processes starts them side by side (the
    pool still starts one process per bot at a time, and at most ``starts_at_once`` in all).
    Raises what the first failing seat's acquire raised (a :class:`~referee.errors.HostError`,
    or a bot the pool does not know), as it raised it, once every seat was tried, the leases
    got by the others given back."""
    got: list[Lease | StartFailure | None] = [None] * len(fixture.seats)
    failed: dict[int, Exception] = {}  # seat -> what its acquire raised

    async def seat_one(seat: int, name: str) -> None:
        try:
            got[seat] = await pool.acquire(name, fixture.deal_key, note=f"game {fixture.game_id}: seat {seat}")
        except Exception as error:  # one error as acquire raised it, not a group of them
            failed[seat] = error

    async with trio.open_nursery() as nursery:
        for seat, name in enumerate(fixture.seats):
            if seat not in skip:
                nursery.start_soon(seat_one, seat, name)
    if failed:
        for lease in got:
            if isinstance(lease, Lease):
                pool.release(lease, crashed=False)
        raise failed[min(failed)]
    return got


def _lead_to_log(fault: FaultRecord, lease: Lease | None, game_id: str) -> FaultRecord:
    """The bot's log names the game and decision of each fault, beside its traceback, with
    what came back (the gRPC status, which the pages students read leave out; ``referee
    faults`` finds the log by the game's ``[referee] game <id>: seat N`` line)."""
    if lease is not None and fault.decision is not None:
        answered = f" (answered: {cut(fault.answer)})" if fault.answer else ""
        lease.note(f"game {game_id} decision {fault.decision}: {fault.kind} fault: {cut(fault.detail)}{answered}")
    return fault


def _hang_up(leases: Sequence[Lease | None], people: People | None = None) -> None:
    """Close the game's connections (the league is interrupted): a call in flight ends at
    once instead of at its deadline (none under the debug preset), and so does a wait for a
    person's answer."""
    if people is not None:
        people.stop()
    for lease in leases:
        if lease is not None:
            lease.client.close()


async def announce_result(game: Game, leases: Sequence[Lease | None], faults: Sequence[FaultRecord] = ()) -> None:
    """Send GameOver to every live bot of a finished game at once; a bot may ignore it.
    It tells each seat's forfeit and its count of ``faults`` (this game's)."""
    outcome = game.outcome
    if outcome is None:
        return
    counts = [0] * game.num_seats
    for fault in faults:
        counts[fault.seat] += 1
    async with trio.open_nursery() as nursery:
        for seat, lease in enumerate(leases):
            if lease is not None:
                nursery.start_soon(
                    lease.game_over, game.game_id, seat, outcome.placements, outcome.winner, outcome.forfeited, counts
                )
