"""Bot processes for a league: started once, reused across games, restarted after a
crash, withdrawn after too many restarts, killed at the end (docs/design.md §6). A process
that leaves the request after a timeout unanswered too is stuck: it is replaced before
its next game (sandbox.md rows 2-3), without counting as a crash restart.

One pool per league. A bot given by command gets one process per seat it holds at once,
and a process never plays two rotations of one deal (docs/design.md §6: a bot never plays a
deal it has seen); a bot given by address (remote) is one shared connection that we neither
start nor kill. Idle processes are kept for later games only while the pool holds at most
``processes_at_once`` and the machine has memory to spare (:mod:`referee.league.spare`):
else the least recently used idle process, of any bot, is stopped.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from referee import PROTOCOL_VERSION, __version__
from referee.errors import BotError
from referee.game.records import FaultKind
from referee.game.timecontrol import TimeControl
from referee.league import spare
from referee.league.counts import Counts, LeagueCounts
from referee.league.evidence import DecisionProbe
from referee.league.lateness import heartbeat
from referee.sandbox import TERM_GRACE_S, BotProcess, SandboxSettings, ask_to_stop, launch, stop
from referee.sandbox.command import resolve_command
from referee.sandbox.detail import names_a_limit, telling_lines
from referee.transport.client import BotClient, DecisionAsk, HelloError, HelloInfo, ProtocolMismatch, Reply

STUCK_AFTER = 2  # requests in a row unanswered by their deadline: the process is stuck
STARTUP_STRETCH = 3  # a bot whose process lives may take this many times startup_ms to answer Hello
STARTUP_STRETCH_LOADED = 10  # the same while the machine is overloaded
STARTS_AT_ONCE = max(2, os.cpu_count() or 1)  # bot processes starting at the same time (start-up storms)
SOCKET_POLL_S = 0.005  # how often a starting bot's socket is looked for, s


def _overloaded() -> bool:
    """Whether the machine is overloaded: the 1-minute load average is at least twice the
    CPU count, or the referee's own threads lost a fifth of the last 10 s waiting to run."""
    try:
        if os.getloadavg()[0] >= 2 * (os.cpu_count() or 1):
            return True
    except OSError:
        pass
    return heartbeat().late_fraction(10.0) >= 0.2


@dataclass(frozen=True)
class BotEntry:
    """A bot of the league: exactly one of ``command`` and ``address`` is set; neither for
    a seat a person plays (``human``: :mod:`referee.league.human`), which no pool starts."""

    name: str
    command: tuple[str, ...] = ()
    address: str | None = None
    directory: Path = Path(".")
    ro_paths: tuple[str, ...] = ()
    human: bool = False

    @property
    def remote(self) -> bool:
        return self.address is not None


@dataclass
class Lease:
    """One bot process (or remote connection) serving one seat of one game; a match Player."""

    name: str
    client: BotClient
    process: BotProcess | None
    hello: HelloInfo
    unanswered: int = 0  # requests in a row that got no answer by their deadline
    deals: set[Hashable] = field(default_factory=set)  # the deals this process has played or plays
    idle_since: float = 0.0  # time.monotonic() when it was last returned
    probe: DecisionProbe | None = None  # the machine's evidence around each ask (docs/design.md §5)

    @property
    def stuck(self) -> bool:
        """It did not answer the request after a timeout either: it keeps its slot only if
        it answers the next request (sandbox.md rows 2-3)."""
        return self.unanswered >= STUCK_AFTER

    def decide(self, ask: DecisionAsk) -> Reply:
        """The match's blocking call (on the game's thread, ``referee.league.gamethread``).
        A reply later than the time the bot was told (``time_left_ms`` + ``bank_left_ms``),
        or none by the deadline, carries the evidence of what held it up that the bot did
        not cause (:class:`referee.league.evidence.DecisionProbe`)."""
        probe = self.probe
        mark = probe.mark() if probe is not None else None
        reply = self.client.decide_blocking(ask)
        late = reply.fault == "timeout" or 0 < ask.time_left_ms + ask.bank_left_ms < reply.ms  # past the time it was told
        if mark is not None and probe is not None and late:
            reply = replace(reply, evidence=probe.evidence(mark, answered=reply.fault != "timeout"))
        self.unanswered = self.unanswered + 1 if reply.fault == "timeout" else 0
        return reply

    async def game_over(
        self,
        game_id: str,
        seat: int,
        placements: Sequence[int],
        winner: int | None,
        forfeited: Sequence[bool] = (),
        faults: Sequence[int] = (),
    ) -> None:
        """End the seat's ``Play`` stream, if any, and tell a live bot the game's result (in
        trio, after the game's thread ended), also a stuck one that is replaced next (it may
        still hear it, within 1 s)."""
        self.client.end_play(game_id, seat)
        if self.exit_detail() is None:
            await self.client.game_over(game_id, seat, placements, winner, 1.0, forfeited, faults)

    def exit_detail(self) -> str | None:
        if self.process is None:
            return None
        return self.process.exit_detail()

    @property
    def log_path(self) -> Path | None:
        """The bot process's log (None for a remote bot)."""
        return self.process.log_path if self.process is not None else None

    def note(self, line: str) -> None:
        """Append ``[referee] line`` to the bot's log (the game it plays, its faults), so
        that a fault leads to the traceback beside it. Never raises."""
        if self.process is not None:
            self.process.note(line)


@dataclass(frozen=True)
class StartFailure:
    """Why a bot could not take its seat: a ``startup`` or ``protocol`` fault, with its
    evidence (docs/design.md §5): ``request`` the Hello request as JSON ("" when the process
    could not be started), ``answer`` what came back (the HelloReply as JSON, the gRPC
    status, or how the process ended), ``ms`` from starting (or connecting) to the failure;
    ``reason`` in a few words (the last line the bot wrote to stderr, else how it ended, else
    ``detail``) and ``log`` its process's log, for a one-line report."""

    kind: FaultKind
    detail: str
    request: str = ""
    answer: str = ""
    ms: float | None = None
    reason: str = ""
    log: Path | None = None


def asked_over(hello: HelloInfo) -> str:
    """How the referee asks this bot its decisions, in words (its log, check-bot)."""
    return "decisions over the Play stream" if hello.streams else "decisions over unary Decide"


def _idle_for(slots: _BotSlots, deal: Hashable | None) -> Lease | None:
    """Take the most recently idle process of ``slots`` that has not played ``deal``
    (any, for None); None when there is none."""
    for index in range(len(slots.idle) - 1, -1, -1):
        if deal is None or deal not in slots.idle[index].deals:
            return slots.idle.pop(index)
    return None


def _seated(lease: Lease, deal: Hashable | None) -> Lease:
    if deal is not None:
        lease.deals.add(deal)
    return lease


def _interrupted() -> bool:
    """Whether the calling trio task is being cancelled (Ctrl-C, the league stopping)."""
    try:
        return trio.current_effective_deadline() == -math.inf
    except RuntimeError:  # not in trio
        return False


def _stopping(error: BaseException) -> bool:
    """Whether ``error`` ends the league because it was stopped (Ctrl-C, SIGTERM, a
    cancellation), also inside an exception group."""
    if isinstance(error, BaseExceptionGroup):
        return any(_stopping(inner) for inner in error.exceptions)
    return isinstance(error, (KeyboardInterrupt, trio.Cancelled))


def _hello_request_json() -> str:
    """The Hello request as JSON (the evidence of a ``startup`` or ``protocol`` fault)."""
    return json.dumps(
        {"protocol_major": PROTOCOL_VERSION[0], "protocol_minor": PROTOCOL_VERSION[1], "referee_version": __version__},
        separators=(",", ":"),
    )


@dataclass
class _BotSlots:
    entry: BotEntry
    idle: list[Lease] = field(default_factory=list)
    starts: int = 0
    shared: Lease | None = None  # remote bots
    starting: trio.Lock = field(default_factory=trio.Lock)  # one start of this bot at a time


class BotPool:
    """Leases bot processes to games. Use as ``async with BotPool(...) as pool``."""

    def __init__(
        self,
        bots: Sequence[BotEntry],
        *,
        run_dir: Path,
        sandbox: SandboxSettings,
        time: TimeControl,
        max_restarts: int,
        restarts: Mapping[str, int] | None = None,
        counts: Counts | None = None,
        processes_at_once: int | None = None,
        deal_rule: bool = True,
        starts_at_once: int = STARTS_AT_ONCE,
    ) -> None:
        """``counts``: the league's restarts and withdrawals (:mod:`referee.league.counts`),
        which the pool counts crashes and failed starts into and asks before a start; by
        default counts of its own, from ``restarts``: bot name -> restarts already spent in
        this league (a resumed league's stored games, ``ResultsStore.restart_counts``): a bot
        past ``max_restarts`` stays withdrawn. ``processes_at_once``: the most bot processes
        the pool keeps alive (default: two per bot; at least the seats of the caller's games
        at once), the sandbox's budget of a normal user's uid (:func:`referee.sandbox.launch`):
        before a start that would pass it, and whenever the machine is short of memory
        (:func:`referee.league.spare.short_of_memory`), the least recently used idle process
        is stopped. ``deal_rule``: never lease a process for a deal it has played
        (docs/design.md §6); ``referee play`` turns it off (a student's own test games,
        where one process per seat is quicker). ``starts_at_once``: bot processes started
        at the same time, however many games ask (a start-up storm would make every one of
        them slow)."""
        self._bots = {bot.name: _BotSlots(bot) for bot in bots if not bot.human}  # people are seated by the league
        remote = [bot.name for bot in bots if bot.remote]
        self._counts: Counts = counts if counts is not None else LeagueCounts(max_restarts, restarts, remote=remote)
        self._run_dir = run_dir
        self._sandbox = sandbox
        self._time = time
        self._max_restarts = max_restarts
        self._live: list[Lease] = []
        self._slot = 0
        self._at_once = processes_at_once or 2 * max(1, len(self._bots))
        self._deal_rule = deal_rule
        self._starts = trio.CapacityLimiter(max(1, starts_at_once))

    async def __aenter__(self) -> BotPool:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        self.close(interrupted=exc is not None and _stopping(exc))

    def withdrawn(self) -> set[str]:
        return {name for name in self._bots if self.is_withdrawn(name)}

    def is_withdrawn(self, name: str) -> bool:
        return not self._bots[name].entry.remote and self._counts.is_withdrawn(name)

    async def acquire(self, name: str, deal: Hashable | None = None, *, note: str | None = None) -> Lease | StartFailure | None:
        """A ready bot for one seat; a StartFailure (recorded as a fault by the caller);
        or None when the bot is withdrawn (the referee plays its seat).

        ``deal``: the game's deal (:attr:`referee.schedule.fixture.Fixture.deal_key`). A
        process that has played it (or plays it now) is never leased for it again: another
        idle process is, or a new one starts, with a fresh home (docs/design.md §6). A
        remote bot is one connection and sees every rotation. ``note`` (e.g. ``game <id>:
        seat N``) goes into the log of the process that serves the seat, or that failed to
        start for it, before anything else of this game."""
        slots = self._bots[name]
        if slots.entry.remote:
            return await self._remote(slots)
        if self.is_withdrawn(name):
            return None
        key = deal if self._deal_rule else None
        while (lease := _idle_for(slots, key)) is not None:
            if lease.exit_detail() is None:
                self._ready(lease, note)
                return _seated(lease, key)
            self._discard(lease)  # ended between games: started afresh, no fault, no restart counted
        async with slots.starting:  # one start at a time: a failing bot never gets one start too many
            if self.is_withdrawn(name):
                return None
            async with self._starts:
                got = await self._start(slots, note)
        if isinstance(got, Lease):
            self._ready(got, None)  # its log has the note from its start
            return _seated(got, key)
        return got

    def release(self, lease: Lease, *, crashed: bool) -> None:
        """Return a lease after a game. A crashed or dead process is killed; the next
        acquire starts a new one. A stuck one is killed and replaced too. Restarts are
        counted by :meth:`count_crashes`, once per game, as the results store counts them."""
        slots = self._bots[lease.name]
        if lease.process is None:
            return
        if _interrupted():  # the league is being stopped: close() ends every process cleanly
            lease.client.close()
            return
        if crashed or lease.exit_detail() is not None or lease.stuck:
            self._discard(lease)
        else:
            lease.client.end_plays()  # a game that ended without GameOver leaves none open
            lease.idle_since = time.monotonic()
            slots.idle.append(lease)
            self._trim_idle()

    def count_crashes(self, names: Iterable[str]) -> None:
        """One restart spent by each bot in ``names`` (a game in which it crashed, however
        many of its seats did: ``ResultsStore.restart_counts``); past ``max_restarts`` it
        is withdrawn."""
        for name in set(names):
            slots = self._bots.get(name)
            if slots is not None and not slots.entry.remote:
                self._count_failure(slots)

    def close(self, *, interrupted: bool = False) -> None:
        """Stop every process the pool started (idempotent): SIGTERM, a short grace, then
        SIGKILL (:func:`referee.sandbox.stop`). When ``interrupted`` (Ctrl-C, SIGTERM) or
        cancelled, the grace runs on without the referee waiting for it
        (:func:`referee.sandbox.ask_to_stop`)."""
        for lease in self._live:
            lease.client.close()
            if lease.probe is not None:
                lease.probe.close()
        processes = [lease.process for lease in self._live if lease.process is not None]
        if interrupted or _interrupted():
            ask_to_stop(processes)  # the referee stops at once; the bots get their grace meanwhile
        else:
            stop(processes, TERM_GRACE_S)
        self._live.clear()

    # --- internals ---------------------------------------------------------------

    def _ready(self, lease: Lease, note: str | None) -> None:
        if note is not None:
            lease.note(note)
        if lease.probe is not None:
            lease.probe.refresh()  # threads the bot started since its last game

    def _count_failure(self, slots: _BotSlots) -> None:
        self._counts.count_failure(slots.entry.name)

    def _discard(self, lease: Lease) -> None:
        lease.client.close()
        if lease.probe is not None:
            lease.probe.close()
        if lease.process is not None:
            lease.process.kill()
        if lease in self._live:
            self._live.remove(lease)

    def _trim_idle(self, starting: int = 0) -> None:
        """Stop the least recently used idle process while the pool would hold more than
        ``processes_at_once`` with ``starting`` more; and one more when the machine is short
        of memory. Never raises."""
        short = spare.short_of_memory()
        while (len(self._live) + starting > self._at_once or short) and (lru := self._least_recently_used()) is not None:
            self._bots[lru.name].idle.remove(lru)
            lru.note("stopped while idle: the machine is short of memory, or the pool holds processes_at_once")
            self._discard(lru)
            if short:  # one a call while short; the next release or start looks again, its memory freed now
                spare.short_of_memory(fresh=True)
                short = False

    def _least_recently_used(self) -> Lease | None:
        idle = [lease for slots in self._bots.values() for lease in slots.idle]
        return min(idle, key=lambda lease: lease.idle_since, default=None)

    async def _remote(self, slots: _BotSlots) -> Lease | StartFailure:
        if slots.shared is not None:
            return slots.shared
        assert slots.entry.address is not None
        client = BotClient(slots.entry.address, slots.entry.name)
        outcome = await self._hello(client, None, trio.current_time())
        if isinstance(outcome, StartFailure):
            client.close()
            return outcome
        slots.shared = Lease(slots.entry.name, client, None, outcome, probe=DecisionProbe(None))
        return slots.shared

    async def _start(self, slots: _BotSlots, note: str | None = None) -> Lease | StartFailure:
        """Start one process of the bot and shake hands with it. The start-up allowance
        counts from this moment, whether or not its socket exists yet (docs/design.md §5)."""
        entry = slots.entry
        self._trim_idle(starting=1)
        self._slot += 1
        slots.starts += 1
        started = trio.current_time()
        try:
            process = launch(
                entry.command,
                name=entry.name,
                slot=self._slot,
                bot_dir=entry.directory,
                run_dir=self._run_dir,
                settings=self._sandbox_for(entry),
                processes_at_once=self._at_once,
            )
        except BotError as error:
            self._count_failure(slots)
            return StartFailure("startup", str(error), answer="not started", ms=(trio.current_time() - started) * 1000)
        if note is not None:
            process.note(note)
        address = await self._bound_address(process, started)
        if isinstance(address, StartFailure):
            process.kill()
            self._count_failure(slots)
            return address
        client = BotClient(address, entry.name)
        outcome = await self._hello(client, process, started)
        if isinstance(outcome, StartFailure):
            client.close()
            process.kill()
            self._count_failure(slots)
            return outcome
        lease = Lease(entry.name, client, process, outcome, probe=DecisionProbe(process.pid, cgroup=process.cgroup_path))
        process.note(f"Hello: protocol {outcome.major}.{outcome.minor}; {asked_over(outcome)}")
        self._live.append(lease)
        return lease

    def _ran(self, name: str) -> str:
        """The command line the bot was started with, its interpreter resolved as the
        sandbox resolves it (startup-fault evidence)."""
        entry = self._bots[name].entry
        try:
            resolved = resolve_command(entry.command, name=entry.name, bot_dir=Path(os.path.realpath(entry.directory)))
            return shlex.join(resolved.argv)
        except Exception:  # the sandbox raised when starting it; the written command then
            return shlex.join(entry.command)

    def _sandbox_for(self, entry: BotEntry) -> SandboxSettings:
        if not entry.ro_paths:
            return self._sandbox
        return replace(self._sandbox, ro_paths=tuple(self._sandbox.ro_paths) + entry.ro_paths)

    def _give_up(self, started: float, alive: bool) -> float:
        """When a start that began at ``started`` (trio time) fails: ``startup_ms`` later,
        stretched while its process lives to :data:`STARTUP_STRETCH` times that, or
        :data:`STARTUP_STRETCH_LOADED` times on an overloaded machine."""
        startup_s = self._time.startup_ms / 1000
        if not alive:
            return started + startup_s
        return started + startup_s * (STARTUP_STRETCH_LOADED if _overloaded() else STARTUP_STRETCH)

    def _no_hello(self, name: str, started: float, what: str) -> str:
        """The message of a start that ran out of time: the real time it had."""
        waited = trio.current_time() - started
        startup_s = self._time.startup_ms / 1000
        stretched = f", allowed {waited / startup_s:.1f} × startup_ms while its process ran" if waited > startup_s * 1.05 else ""
        return f"bot {name}: {what} within {waited:.1f} s of its start (startup_ms = {startup_s:g} s{stretched})"

    async def _bound_address(self, process: BotProcess, started: float) -> str | StartFailure:
        """The verified address of the socket the bot bound (docs/sandbox.md "The bot's
        socket"), while its process lives and within the start-up allowance
        (:meth:`_give_up`); a StartFailure when the process ends first, the time passes, or
        its socket path holds anything but its own socket."""
        try:
            while (address := process.find_address()) is None:
                if process.exit_detail() is not None:
                    raise HelloError(f"bot {process.name}: its process ended before answering Hello")
                if trio.current_time() >= self._give_up(started, alive=True):
                    raise HelloError(self._no_hello(process.name, started, "no socket on $KWHIST_LISTEN, so no Hello reply,"))
                await trio.sleep(SOCKET_POLL_S)
        except BotError as error:
            return self._start_failure(error, process, started, _hello_request_json())
        return address

    def _start_failure(self, error: BotError, process: BotProcess | None, started: float, request: str = "") -> StartFailure:
        """A ``startup`` fault for ``error``, with how the process ended and its stderr head."""
        detail = str(error)
        answer = error.answer if isinstance(error, HelloError) else ""
        reason = detail.split(": ", 1)[-1]
        if process is not None:
            exit_detail = process.exit_detail()
            if exit_detail:
                detail += f"; {exit_detail}"
                answer = f"{answer}; {exit_detail}" if answer else exit_detail
                reason = exit_detail
            head = "\n".join(telling_lines(process.stderr_head(500)))
            if head:
                detail += f"; stderr: {head}"
            last = telling_lines(process.stderr_tail(2000))
            if last and exit_detail and not names_a_limit(exit_detail):
                reason = last[-1]
            detail += f"; ran: {self._ran(process.name)}; log {process.log_path}"
        ms = (trio.current_time() - started) * 1000
        log = process.log_path if process is not None else None
        return StartFailure("startup", detail, request, answer, ms, reason=reason, log=log)

    async def _hello(self, client: BotClient, process: BotProcess | None, started: float) -> HelloInfo | StartFailure:
        request = _hello_request_json()
        try:
            return await self._hello_or_exit(client, process, started)
        except ProtocolMismatch as error:
            return StartFailure("protocol", str(error), request, error.answer, (trio.current_time() - started) * 1000)
        except BotError as error:
            return self._start_failure(error, process, started, request)

    async def _hello_or_exit(self, client: BotClient, process: BotProcess | None, started: float) -> HelloInfo:
        """Hello within the start-up allowance counted from ``started``; a process that
        ends first fails at once (raises HelloError).

        Each Hello may take up to ``startup_ms``; one that times out while the bot's
        process lives is asked again, until :meth:`_give_up` (3 × ``startup_ms`` from the
        start, 10 × on an overloaded machine). A slow start on a loaded machine is the
        referee's side, never a student's fault; a bot that never answers is still a
        startup fault, and its message gives the real time it had."""
        startup_s = self._time.startup_ms / 1000
        asked = 0
        while True:
            asked += 1
            give_up = self._give_up(started, alive=process is not None)
            timeout_s = max(0.05, min(startup_s, give_up - trio.current_time()))
            try:
                return await self._hello_once(client, process, timeout_s)
            except HelloError as error:
                lives = process is not None and process.exit_detail() is None
                timed_out = error.answer.startswith("DEADLINE_EXCEEDED")
                if not timed_out:
                    raise
                if lives and trio.current_time() < self._give_up(started, alive=True):
                    continue
                what = "no Hello reply" + (f" (asked {asked} times while its process ran)" if asked > 1 else "")
                who = client.name if process is not None else f"{client.name} at {client.address}"  # a remote bot: where we asked
                raise HelloError(self._no_hello(who, started, what) + ": does it start, and serve on $KWHIST_LISTEN?", error.answer) from None

    async def _hello_once(self, client: BotClient, process: BotProcess | None, timeout_s: float) -> HelloInfo:
        outcome: list[HelloInfo | BotError] = []

        async def hello(scope: trio.CancelScope) -> None:
            try:
                outcome.append(await client.hello(timeout_s))
            except BotError as error:
                outcome.append(error)
            scope.cancel()

        async def watch(scope: trio.CancelScope) -> None:
            while process is not None and process.exit_detail() is None:
                await trio.sleep(0.05)
            scope.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(hello, nursery.cancel_scope)
            if process is not None:
                nursery.start_soon(watch, nursery.cancel_scope)
        if not outcome:
            raise HelloError(f"bot {client.name}: its process ended before answering Hello")
        if isinstance(outcome[0], BotError):
            raise outcome[0]
        return outcome[0]
