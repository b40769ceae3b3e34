"""``referee check-bot``: a conformance report for one bot (docs/design.md §1, §4, §5).

The checks, in order (a failed Hello skips the rest):

1. ``hello``: the bot starts and answers Hello within ``startup_ms``.
2. ``protocol``: its major protocol version is ``referee.PROTOCOL_VERSION[0]``; the line
   says how it is asked its decisions (over ``Play`` streams when its Hello reply offers
   them, else unary ``Decide``), and every later check asks that way, as a league does.
3. one check per situation (:mod:`referee.checkbot.situations`: one for each branch of the
   rules a bot can meet under the rules checked, found by playing seeded games): the answer
   decodes, comes on time and is legal. A bot that crashes is started again for the next.
   Then ``branches``: the branches asked, and under how many rule sets.
4. ``on-time``: every answer came within ``move_ms`` + ``grace_ms``; a warning when the
   slowest passed half of ``move_ms``.
5. ``game-over``: GameOver is answered (or left UNIMPLEMENTED, which is fine).
6. ``games``: ``games`` games against the sample bots without a fault.
7. ``refused-calls``: no system call of the bot was refused by the sandbox's allowlist
   (docs/sandbox.md), as far as the referee can tell here; also after a failed Hello (a
   refused call may be why).

Runs under trio with the league's own pool, client and match, so a bot passes here
exactly when the referee accepts it in a league. No rich: the command renders results.
"""

from __future__ import annotations

import glob
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Literal

import trio

import referee
from referee.checkbot.describe import describe_request, fault_in_words, legal_answers, plain_words
from referee.checkbot.situations import Coverage, Situation, build_situations, finish
from referee.game.faults import FaultPolicy
from referee.game.records import FaultRecord, GameRecord
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.game.views import format_action, why_illegal
from referee.league.match import Decided, Player, ask_decision
from referee.league.pool import BotEntry, BotPool, Lease, StartFailure, asked_over
from referee.league.run import LeagueSpec, play_fixture
from referee.sandbox import SandboxSettings, refusals_unnamed, refused_calls
from referee.sandbox.workdir import safe_stem
from referee.schedule.fixture import Fixture
from referee.transport.replies import DecisionAsk, Reply

Status = Literal["pass", "warn", "fail", "skip"]


@dataclass(frozen=True)
class CheckResult:
    """One line of the report. ``key`` is stable (``"hello"``, ``"follow-suit"``, ...);
    ``title`` what was checked; ``summary`` one line of outcome. On a failure ``asked``
    is what the bot was asked, ``answered`` what it answered (or the gRPC status, exit
    code or signal) and ``expected`` what a legal answer would have been. ``warn`` passes,
    with something to look at."""

    key: str
    title: str
    status: Status
    summary: str
    asked: str = ""
    answered: str = ""
    expected: str = ""

    @property
    def passed(self) -> bool:
        return self.status in ("pass", "warn")


@dataclass(frozen=True)
class CheckSettings:
    """``time``: the limits the bot is checked against (ms); ``games``: games against the
    sample bots; ``seed``: their deals; ``rules``: their rule set (docs/rules.md §2), and
    the situations' base rules; ``pinned``: the variants given (``--rule``), kept in every
    situation, while the others take each of their values; ``run_dir``: bot logs and
    private directories."""

    time: TimeControl = field(default_factory=TimeControl)
    games: int = 20
    seed: int = 1
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    run_dir: Path = Path("results/check-bot")
    rules: Rules = field(default_factory=Rules)
    pinned: frozenset[str] = frozenset()


Report = Callable[[CheckResult], None]
Progress = Callable[[str], None]
GameDone = Callable[[GameRecord], None]


async def check_bot(
    bot: BotEntry,
    opponents: Sequence[BotEntry],
    settings: CheckSettings,
    *,
    on_result: Report | None = None,
    on_progress: Progress | None = None,
    on_game: GameDone | None = None,
) -> list[CheckResult]:
    """Run every check on ``bot`` (a command or an address); ``opponents`` are the sample
    bots it meets in the games check (at least one; tables of ``1 + len(opponents)``).

    ``on_result`` is called with each result as soon as it is known, ``on_progress``
    with a short note while the games are played, ``on_game`` with the record of each
    game against the sample bots (for :mod:`referee.checkbot.strength`). Never raises for the bot's
    misbehaviour; raises SandboxError when the sandbox mode cannot run here."""
    results: list[CheckResult] = []

    def report(result: CheckResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    time = replace(settings.time, unlimited=False)
    entries = (bot, *opponents)
    coverage = build_situations(settings.rules, settings.pinned)
    situations = coverage.situations
    restarts = len(entries) + settings.games + len(situations)
    async with BotPool(entries, run_dir=settings.run_dir, sandbox=settings.sandbox, time=time, max_restarts=restarts, deal_rule=False) as pool:
        lease = await _check_hello(pool, bot, time, report)
        if lease is None:
            for result in _skipped(situations, settings, "not asked: the bot did not pass Hello"):
                report(result)
            report(check_refused_calls(bot, settings.sandbox, asked=False))  # a refused call may be why
            return results
        lease = await _check_situations(pool, bot, lease, situations, time, report, branches=branches_result(coverage))
        if lease is None:
            report(CheckResult("game-over", "handles GameOver", "skip", "not asked: the bot's process ended"))
        else:
            report(await _check_game_over(lease, situations[-1], time))
            pool.release(lease, crashed=lease.exit_detail() is not None)
        report(await _check_games(pool, bot, opponents, settings, time, on_progress, on_game))
    report(check_refused_calls(bot, settings.sandbox))
    return results


def branches_result(coverage: Coverage) -> CheckResult:
    """The ``branches`` row: which branches the situations asked, from how many games under
    how many rule sets, and those these rules cannot produce."""
    summary = (
        f"{len(coverage.covered)} branches asked in {len(coverage.situations)} situations, found in {coverage.games} "
        f"seeded games under {coverage.rule_sets} rule sets: {', '.join(coverage.covered)}"
    )
    if coverage.impossible:
        summary += f"; not possible under the rules given: {', '.join(coverage.impossible)}"
    if coverage.missed:
        summary += f"; not met in those games (the referee's search, not your bot): {', '.join(coverage.missed)}"
    return CheckResult("branches", "covers the branches of the rules", "warn" if coverage.missed else "pass", summary)


def check_refused_calls(bot: BotEntry, sandbox: SandboxSettings, *, asked: bool = True) -> CheckResult:
    """The ``refused-calls`` row: the system calls the sandbox refused the bot in this run
    (each also named once in its log). Where none can be refused or named (a bot given by
    address, another sandbox mode, no seccomp user notification here) it passes, saying so:
    the host's limits never fail a bot. ``asked``: False after a failed Hello (skipped
    unless a call was refused, which may be why)."""
    title = "makes only the system calls the sandbox allows"
    found = refused_calls(bot.name)
    if found:
        return CheckResult(
            "refused-calls", title, "fail",
            f"refused: {', '.join(found)} (not allowed for bots; docs/sandbox.md): where the bot still played, its runtime "
            "went on without them; a runtime that needs one cannot use it in a league",
            answered=", ".join(found), expected="only the calls of the allowlist (docs/sandbox.md)",
        )  # fmt: skip
    if not asked:
        return CheckResult("refused-calls", title, "skip", "not asked: the bot did not pass Hello")
    if bot.remote:
        return CheckResult("refused-calls", title, "pass", "not told: a bot given by address is not sandboxed by the referee")
    why = refusals_unnamed(sandbox)
    return CheckResult("refused-calls", title, "pass", "none refused" if why is None else f"not told: {why}")


def _skipped(situations: Sequence[Situation], settings: CheckSettings, why: str) -> list[CheckResult]:
    rows = [CheckResult(s.key, s.title, "skip", why) for s in situations]
    rows.append(CheckResult("on-time", "answers on time", "skip", why))
    rows.append(CheckResult("game-over", "handles GameOver", "skip", why))
    rows.append(CheckResult("games", f"plays {settings.games} games against the sample bots without a fault", "skip", why))
    return rows


async def _check_hello(pool: BotPool, bot: BotEntry, time: TimeControl, report: Report) -> Lease | None:
    """The ``hello`` and ``protocol`` checks; the lease when both pass."""
    major, minor = referee.PROTOCOL_VERSION
    title = "answers Hello" if bot.remote else "starts and answers Hello"
    title += f" within startup_ms ({time.startup_ms} ms)"
    protocol_title = f"speaks protocol {major}.x"
    started = trio.current_time()
    got = await pool.acquire(bot.name)
    ms = (trio.current_time() - started) * 1000
    if isinstance(got, StartFailure) and got.kind == "startup":
        report(CheckResult("hello", title, "fail", got.detail, asked=f"Hello (protocol {major}.{minor})", answered=got.answer or got.detail,
                           expected=f"a HelloReply within {time.startup_ms} ms, served on $KWHIST_LISTEN"))
        report(CheckResult("protocol", protocol_title, "skip", "not asked: no Hello reply"))
        return None
    report(CheckResult("hello", title, "pass", hello_summary(ms, time.startup_ms)))
    if isinstance(got, StartFailure):
        report(CheckResult("protocol", protocol_title, "fail", got.detail, asked=f"Hello (protocol {major}.{minor})",
                           answered=got.answer or got.detail, expected=f"protocol_major = {major}"))
        return None
    if got is None:  # withdrawn: cannot happen on the first acquire
        report(CheckResult("protocol", protocol_title, "skip", "not asked: the bot was withdrawn"))
        return None
    report(CheckResult("protocol", protocol_title, "pass", f"speaks {got.hello.major}.{got.hello.minor} as {got.hello.name!r}"
                       + (f" by {got.hello.author}" if got.hello.author else "") + f"; answers {asked_over(got.hello)}"))
    return got


def hello_summary(ms: float, startup_ms: int) -> str:
    """The ``hello`` line of a bot that answered after ``ms``: within ``startup_ms``, or, as
    it is, over it (the referee asks a living bot again, docs/design.md §5)."""
    if ms <= startup_ms:
        return f"answered in {ms:,.0f} ms"
    return (
        f"answered in {ms:,.0f} ms, over startup_ms ({startup_ms:,} ms): accepted because the referee asks a bot whose "
        "process is still starting again (up to 3 × startup_ms; 10 × on a loaded machine); start faster to be safe"
    )


async def _check_situations(
    pool: BotPool, bot: BotEntry, lease: Lease, situations: Sequence[Situation], time: TimeControl, report: Report, *,
    branches: CheckResult,
) -> Lease | None:
    """One check per situation, then ``branches`` and ``on-time``. A bot whose process
    ended is started again for the next situation, as a league starts it again before its
    next game. Returns the lease for GameOver; None when the bot could not be started again."""
    slowest: tuple[float, str] | None = None
    late: list[str] = []
    busy: Situation | None = None  # the first situation the bot did not answer in time: it may still be at work on it
    crashed_at: str | None = None
    current: Lease | None = lease
    last_ms: float | None = None  # told to the bot as last_decision_ms, as in a league
    for situation in situations:
        if current is None:
            report(CheckResult(situation.key, situation.title, "skip", f"not asked: the bot crashed at {crashed_at!r} and did not start again"))
            continue
        ask = DecisionAsk(
            situation.view, situation.events, situation.decision_number,
            time_left_ms=time.move_ms, bank_left_ms=0, deadline_s=time.clock().deadline_s, last_decision_ms=last_ms,
        )  # fmt: skip
        decided = await settle_in_thread(current, ask, time)  # judged as a league judges it (docs/design.md §5)
        reply = decided.reply
        current.client.end_play(situation.view.game_id, situation.view.seat)  # each situation is a game of its own
        last_ms = reply.ms
        timed_out = decided.judgement.verdict == "timeout"
        if timed_out:
            late.append(f"{situation.key} ({reply.ms:.0f} ms)")
        elif slowest is None or reply.ms > slowest[0]:
            slowest = (reply.ms, situation.key)
        if reply.fault == "crash" and (ended := await _how_it_ended(current)):
            reply = replace(reply, detail=f"{reply.detail}; {ended}")
        log = current.process.log_path if current.process is not None else None
        result = _judge(situation, reply, decided.fault if timed_out else None, log)
        if timed_out and busy is not None:
            result = replace(result, summary=result.summary + still_busy(busy.title))
        report(result)
        if timed_out and busy is None:
            busy = situation
        if reply.fault == "crash":
            crashed_at, busy, last_ms = situation.key, None, None
            pool.release(current, crashed=True)
            got = await pool.acquire(bot.name)
            current = got if isinstance(got, Lease) else None
    report(branches)
    limit = f"limit {time.move_ms} ms + {time.grace_ms} ms grace"
    if late:
        report(CheckResult("on-time", "answers on time", "fail", f"too slow: {', '.join(late)}; {limit}",
                           expected=f"an answer within {time.move_ms} ms (the request's time_left_ms)"))
    elif slowest is None:
        report(CheckResult("on-time", "answers on time", "skip", "no answer to time"))
    else:
        report(on_time_result(slowest[0], slowest[1], time))
    return current


def on_time_result(slowest_ms: float, key: str, time: TimeControl) -> CheckResult:
    """The ``on-time`` row of a bot whose every answer came in time: a warning when the
    slowest took more than half of ``move_ms`` (a loaded machine in a league may take the rest)."""
    summary = f"slowest answer {slowest_ms:.1f} ms ({key}); limit {time.move_ms} ms + {time.grace_ms} ms grace"
    if slowest_ms <= time.move_ms / 2:
        return CheckResult("on-time", "answers on time", "pass", summary)
    share = slowest_ms / time.move_ms
    return CheckResult("on-time", "answers on time", "warn", f"{summary}: {share:.0%} of the limit, over half of it; "
                       "a league on a busy machine may leave it less: answer faster to be safe")


async def _how_it_ended(lease: Lease, wait_s: float = 1.0) -> str | None:
    """How the bot's process ended (exit code, signal, a limit), once it has: waits up to
    ``wait_s`` seconds; None for a bot given by address or one still running."""
    with trio.move_on_after(wait_s):
        while (ended := lease.exit_detail()) is None and lease.process is not None:
            await trio.sleep(0.02)
        return ended
    return None


def still_busy(title: str) -> str:
    """Why a timeout after an earlier one is most likely not this question's fault."""
    return (
        f"; most likely the bot was still at work on an earlier request ({title!r}, not answered in time), "
        "and it answers one request at a time: make that one faster first"
    )


async def settle_in_thread(player: Player, ask: DecisionAsk, time: TimeControl) -> Decided:
    """One scripted decision asked and settled by the league's own step
    (:func:`referee.league.match.ask_decision`: the same evidence, the same rule, asked again
    as a league asks again), on a thread as a game's decisions are; a fresh clock each."""
    return await trio.to_thread.run_sync(partial(ask_decision, player, ask, time.clock()))


def _judge(situation: Situation, reply: Reply, timeout: tuple[str, str] | None, log: Path | None = None) -> CheckResult:
    legal = " ".join(format_action(action) for action in situation.view.legal)
    expected = f"one of: {legal} — {situation.rule}"
    asked = describe_request(reply.request_json)

    answered = reply.answer or "(nothing)"
    if reply.fault is not None:  # the gRPC status in the game's terms (it stays in the bot's log)
        answered = fault_in_words(reply.fault, reply.detail, reply.answer, reply.ms)[1]

    def fail(summary: str) -> CheckResult:
        return CheckResult(situation.key, situation.title, "fail", summary, asked=asked, answered=answered, expected=expected)

    if reply.fault is not None and reply.fault != "timeout":
        where = f"; the bot's log: {log}" if log is not None and reply.fault in ("crash", "malformed") else ""
        return fail(f"{reply.fault}: {fault_in_words(reply.fault, reply.detail, reply.answer, reply.ms)[0]}{where}")
    if timeout is not None:
        return fail(f"timeout: {plain_words(timeout[1])}")
    assert reply.action is not None
    if reply.action not in situation.view.legal:
        return fail(f"illegal: {why_illegal(situation.view, reply.action)}")
    return CheckResult(situation.key, situation.title, "pass", f"answered {format_action(reply.action)}; legal: {legal}")


async def _check_game_over(lease: Lease, situation: Situation, time: TimeControl) -> CheckResult:
    game = finish(situation)
    outcome = game.outcome
    assert outcome is not None
    seat = situation.view.seat
    timeout_s = (time.move_ms + time.grace_ms) / 1000
    problem = await lease.client.game_over(
        game.game_id, seat, outcome.placements, outcome.winner, timeout_s, outcome.forfeited, [0] * game.num_seats
    )
    title = "handles GameOver"
    if problem is None and lease.exit_detail() is None:
        return CheckResult("game-over", title, "pass", "answered (leaving it UNIMPLEMENTED is fine too)")
    answered = plain_words(problem) if problem else f"the process ended: {lease.exit_detail()}"
    return CheckResult("game-over", title, "fail", answered, asked=f"GameOver for {game.game_id}: placements {list(outcome.placements)}, winner {outcome.winner}",
                       answered=answered, expected=f"an Ack within {time.move_ms + time.grace_ms} ms, or status UNIMPLEMENTED")


def _seed(seed: int, number: int) -> int:
    return int.from_bytes(hashlib.sha256(f"check-bot:{seed}:{number}".encode()).digest()[:8], "big")


async def _check_games(
    pool: BotPool, bot: BotEntry, opponents: Sequence[BotEntry], settings: CheckSettings, time: TimeControl,
    on_progress: Progress | None, on_game: GameDone | None = None,
) -> CheckResult:
    title = f"plays {settings.games} games against the sample bots without a fault"
    spec = LeagueSpec(
        name="check-bot", bots=(bot, *opponents), rules=settings.rules, time=time, faults=FaultPolicy(),
        sandbox=settings.sandbox, concurrency=1, run_dir=settings.run_dir,
    )  # fmt: skip
    names = (bot.name, *(opponent.name for opponent in opponents))
    wins = 0
    for number in range(settings.games):
        if on_progress is not None:
            on_progress(f"game {number + 1} of {settings.games}")
        rotation = number % len(names)
        seats = names[rotation:] + names[:rotation]
        fixture = Fixture(
            index=number, table=names, deal=number // len(names), rotation=rotation, seats=seats,
            seed=_seed(settings.seed, number // len(names)), first_dealer=0, game_id=f"check-bot-{number + 1}",
        )  # fmt: skip
        record = await play_fixture(spec, pool, fixture)
        if on_game is not None:
            on_game(record)
        seat = seats.index(bot.name)
        wins += record.winner == seat
        faults = [fault for fault in record.faults if fault.bot == bot.name]
        if faults:
            return _games_failure(title, record.game_id, number + 1, faults, _bot_log(settings.run_dir, bot.name))
    return CheckResult("games", title, "pass", f"no fault in {settings.games} games; won {wins}")


def _bot_log(run_dir: Path, name: str) -> Path | None:
    """The log the bot's latest process wrote in ``run_dir`` (``<name>-<n>.log``), if any."""
    stem = safe_stem(name, 0).removesuffix("-0")
    logs = [path for path in run_dir.glob(f"{glob.escape(stem)}-*.log") if re.fullmatch(rf"{re.escape(stem)}-\d+\.log", path.name)]
    return max(logs, key=lambda path: path.stat().st_mtime_ns, default=None)


def _games_failure(title: str, game_id: str, played: int, faults: Sequence[FaultRecord], log: Path | None = None) -> CheckResult:
    first = faults[0]
    where = "before the game" if first.decision is None else f"decision {first.decision}"
    legal = legal_answers(first.request)
    more = f" ({len(faults)} faults in that game)" if len(faults) > 1 else ""
    detail, answered = fault_in_words(first.kind, first.detail, first.answer, first.ms)
    named = f"; the bot's log: {log}" if log is not None and first.kind in ("crash", "malformed") else ""
    return CheckResult(
        "games", title, "fail", f"game {played} ({game_id}), {where}: {first.kind}: {detail}{more}{named}",
        asked=describe_request(first.request) if first.request else "(no request: the bot was not playing)",
        answered=answered,
        expected=f"one of: {' '.join(legal)}" if legal else "a running bot that answers Hello",
    )  # fmt: skip
