"""One game: ask each seat's bot, enforce the time control, turn bot faults into records
and fallback moves (docs/design.md §5). A fault never pays: a crash forfeits the game at
once, ``max_faults`` faults in one game forfeit it, and the fallback moves are
deliberately weak (:func:`referee.game.views.fallback_action`).

The match loop is synchronous and runs on one worker thread per game
(:mod:`referee.league.gamethread`): each decision is a blocking call made on that thread, so a
decision crosses no thread and wakes no event loop (``make bench``, B2). Trio schedules
whole games, the pool and the store around it.

The order of checks for a decision: the clock is settled first, for every reply (so a
late answer is a ``timeout`` whatever it holds, and spends the bank); then a crash, a
malformed answer, and legality. A late answer is settled on the evidence the player
attached (``Reply.evidence``): only a delay the bot did not cause is excused, and a
decision that got no answer because the machine kept the bot from the time it was told is
asked again, with the same number and events and a fresh, longer deadline, up to ``MAX_ASKS``
asks the bot received (:meth:`referee.game.timecontrol.SeatClock.judge`, docs/design.md
§5). :func:`ask_decision` is that whole step, the one check-bot takes too.
"""

from __future__ import annotations

from time import monotonic, sleep
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from referee.errors import MatchStopped
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.records import ActionRecord, FaultKind, FaultRecord, OverloadRecord
from referee.game.records import asked_again_note
from referee.game.timecontrol import MAX_ASKS, Judgement, SeatClock, TimeControl
from referee.game.views import Action, SeatView, fallback_action, format_action, why_illegal
from referee.league.lateness import HeldUp
from referee.transport.replies import DecisionAsk, Reply


class Player(Protocol):
    """A bot at a seat, as the match sees it (``referee.league.pool.Lease`` in a league)."""

    name: str

    def decide(self, ask: DecisionAsk) -> Reply:
        """Ask the bot, blocking up to ``ask.deadline_s`` seconds; never raises for a bot's
        fault. A late reply may carry ``evidence`` of a slow machine (docs/design.md §5);
        the same decision may be asked again (the same number and events)."""
        ...

    def exit_detail(self) -> str | None:
        """Why the bot's process ended, or None while it runs (or for a remote bot)."""
        ...


Trace = Callable[[int, SeatView, Reply | None, Action, FaultKind | None], None]
"""(seat, view, the reply or None for a seat the referee plays, the action applied, the fault judged)."""


@dataclass
class SeatState:
    """What the match tracks for one seat: its clock, its faults, whether a bot still plays it."""

    clock: SeatClock
    events_sent: int = 0
    faults: int = 0
    crashed: bool = False
    forfeited_round: int | None = None
    last_ms: float | None = None  # the measured time of its previous decision, told to the bot


@dataclass
class MatchResult:
    actions: list[ActionRecord] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    crashed: set[int] = field(default_factory=set)  # seats whose bot died in this game
    forfeits: list[tuple[int, int]] = field(default_factory=list)  # (decision number, seat): forfeited before that decision
    overloads: list[OverloadRecord] = field(default_factory=list)  # late answers that were the machine's


def play_match(
    game: Game,
    players: Sequence[Player | None],
    time: TimeControl,
    policy: FaultPolicy,
    *,
    startup_faults: Sequence[FaultRecord] = (),
    trace: Trace | None = None,
    stopped: Callable[[], bool] | None = None,
    held: HeldUp | None = None,
    seat_time: Mapping[int, TimeControl] | None = None,
    moved: Callable[[], None] | None = None,
) -> MatchResult:
    """Play ``game`` to its end, blocking: each decision waits for its bot up to the
    time control's deadline. ``players[seat]`` None: the referee plays the fallback for
    that seat (a bot that failed to start or is withdrawn). Faults already recorded before
    the game (``startup_faults``) count towards ``policy.forfeit_after``. The bots are
    not told the result (the caller sends GameOver: :func:`referee.league.run.announce_result`).

    ``stopped`` is asked before each decision; when it returns True the game is abandoned
    and :class:`~referee.errors.MatchStopped` raised (the league was interrupted).
    ``held``: the league's record of decisions the machine held up (its pace follows it).
    Never raises for a bot's misbehaviour; otherwise raises only on the referee's own bugs.

    ``seat_time[seat]``: that seat's own time control instead of ``time`` (a person's,
    :mod:`referee.league.human`), judged the same way. ``moved()`` is called on the game's
    thread after each action is applied (a person's page follows the game).
    """
    result = MatchResult(faults=list(startup_faults))
    seats = [SeatState((seat_time or {}).get(seat, time).clock()) for seat in range(len(players))]
    for startup in startup_faults:
        seats[startup.seat].faults += 1
    for seat, player in enumerate(players):
        if player is None:
            # no bot plays this seat (it failed to start, or is withdrawn): it forfeits at
            # once, so it never ranks above a seat that plays (docs/design.md §5)
            seats[seat].crashed = True
            game.forfeit(seat)
            result.forfeits.append((0, seat))
            seats[seat].forfeited_round = game.round_number
    decision = 0
    while not game.over:
        if stopped is not None and stopped():
            raise MatchStopped(f"game {game.game_id} abandoned after {decision} decisions")
        to_act = game.to_act
        assert to_act is not None
        seat = to_act
        state = seats[seat]
        view = game.view(seat)
        if state.faults >= policy.forfeit_after and state.forfeited_round != view.round_number:
            game.forfeit(seat)
            result.forfeits.append((decision, seat))
            state.forfeited_round = view.round_number
            view = game.view(seat)
        player = players[seat]
        if player is None or state.crashed or state.forfeited_round is not None:
            action = fallback_action(view)
            result.actions.append(ActionRecord(seat, view.decision.value if view.decision else "", format_action(action), None))
            reply = None
        else:
            events = game.events[state.events_sent :]
            state.events_sent = len(game.events)
            ask = DecisionAsk(
                view,
                events,
                decision,
                time_left_ms=0 if state.clock.control.unlimited else state.clock.control.move_ms,
                bank_left_ms=0 if state.clock.control.unlimited else int(state.clock.bank_left_ms),
                deadline_s=state.clock.deadline_s,
                last_decision_ms=state.last_ms,
            )
            decided = ask_decision(player, ask, state.clock, state.clock.control, held=held, stopped=stopped)
            reply, action, fault = decided.reply, decided.action, decided.fault
            if stopped is not None and stopped():  # interrupted: the call was cut, not the bot's fault
                raise MatchStopped(f"game {game.game_id} abandoned at decision {decision}")
            if decided.overload is not None:
                result.overloads.append(decided.overload)
            state.last_ms = round(reply.ms, 3)  # as recorded (ActionRecord.ms)
            if fault is not None:
                kind, detail = fault
                answer = reply.answer
                if kind == "crash":
                    state.crashed = True
                    result.crashed.add(seat)
                    exit_detail = _exit_detail(player)
                    if exit_detail:
                        detail = f"{detail}; {exit_detail}"
                        answer = f"{answer}; {exit_detail}"
                state.faults += 1
                result.faults.append(
                    FaultRecord(kind, seat, player.name, decision, detail, reply.request_json, answer, round(reply.ms, 3))
                )
                action = fallback_action(view)
            result.actions.append(
                ActionRecord(seat, view.decision.value if view.decision else "", format_action(action), round(reply.ms, 3), fault[0] if fault else None)
            )
            if (state.crashed or state.faults >= policy.forfeit_after) and state.forfeited_round is None:
                # a crash forfeits at once: a bot that is not there never profits from the
                # fallbacks played for it (docs/design.md §5)
                game.forfeit(seat)
                result.forfeits.append((decision, seat))
                state.forfeited_round = view.round_number
        if trace is not None:
            trace(seat, view, reply, action, result.actions[-1].fault)
        game.apply(seat, action)
        if moved is not None:
            moved()
        decision += 1
    return result


@dataclass(frozen=True)
class Decided:
    """One decision asked and judged (:func:`ask_decision`): the last ``reply``, its
    ``judgement``, the ``action`` (the bot's; a placeholder when ``fault`` is set), the
    ``fault`` (kind, detail) or None, and the ``overload`` record when the machine held up
    any ask of it (excused, asked again, or every ask held up), else None."""

    reply: Reply
    judgement: Judgement
    action: Action
    fault: tuple[FaultKind, str] | None
    overload: OverloadRecord | None


def ask_decision(
    player: Player,
    ask: DecisionAsk,
    clock: SeatClock,
    time: TimeControl,
    *,
    held: HeldUp | None = None,
    stopped: Callable[[], bool] | None = None,
) -> Decided:
    """Ask ``player`` the decision ``ask``, again (the same request: the same number and
    events, the same time told, a deadline one limit longer each time: 2, 3, 4 × the limit)
    while the machine kept the bot from the time it was told, up to :data:`MAX_ASKS` asks
    the bot received; settle ``clock`` by
    :meth:`SeatClock.judge`; judge the answer (docs/design.md §5). The one step of a
    decision for a league, ``referee play`` and check-bot. ``held`` notes each ask the
    machine held up. Raises :class:`MatchStopped` when ``stopped`` says so between asks."""
    view = ask.view
    took: list[float] = []
    excused: list[float] = []
    received = attempts = 0
    first = ask
    while True:
        attempts += 1
        if received and first.deadline_s is not None:  # asked again: one limit longer each time (docs/design.md §5)
            ask = replace(first, deadline_s=first.deadline_s * (received + 1))
        reply = player.decide(ask)
        got = reply.evidence is None or reply.evidence.received
        last = (got and received + 1 >= MAX_ASKS) or attempts >= 2 * MAX_ASKS
        told = clock.told_ms
        judgement = clock.judge(reply.ms, reply.fault, reply.evidence, last_ask=last)
        received += got
        held_up = judgement.verdict in ("excused", "ask again") or (reply.fault == "timeout" and judgement.charged_ms < told)
        if held_up and held is not None:
            held.note()  # the league's pace follows these (referee.league.pacing)
        if got and (held_up or took):
            took.append(round(reply.ms, 3))
            excused.append(round(judgement.machine_ms, 3))
        if judgement.verdict != "ask again":
            break
        if stopped is not None and stopped():
            raise MatchStopped(f"game {view.game_id} abandoned while asking decision {ask.number} again")
    action, fault = _judge(view, reply, judgement, time, held_last=held_up, asks=len(took))
    overload = None
    if took:
        overload = OverloadRecord(
            view.seat, player.name, ask.number, len(took), tuple(took), tuple(excused), round(judgement.charged_ms, 3),
            timed_out=judgement.verdict == "timeout",
        )
    return Decided(reply, judgement, action, fault, overload)


def _judge(
    view: SeatView, reply: Reply, judgement: Judgement, time: TimeControl, *, held_last: bool, asks: int
) -> tuple[Action, tuple[FaultKind, str] | None]:
    """-> (the bot's action, or a placeholder when faulted; the fault kind and detail).

    The clock was settled first (``judgement``), for every reply whatever it holds
    (docs/design.md §5): a crash is a crash, but any answer after its deadline is a
    ``timeout`` even when it is also malformed or illegal, and spends the bank like a
    legal one. A timeout's detail names the machine only where the evidence does:
    ``held_last``, the machine kept the bot from its time on the last ask too."""
    if reply.fault == "crash":
        return view.legal[0], (reply.fault, reply.detail)
    if judgement.verdict == "timeout":
        if reply.fault == "timeout":
            detail = reply.detail
        else:
            limit = time.move_ms + time.grace_ms
            own = f" ({judgement.charged_ms:,.0f} ms of it the bot's own time)" if judgement.machine_ms > 0 else ""
            detail = f"answered in {reply.ms:.0f} ms{own}; the limit was {time.move_ms} ms (+{limit - time.move_ms} ms grace) and the bank was empty"
            if reply.fault is not None:
                detail += f"; the late answer was also {reply.fault}: {reply.detail}"
            elif reply.action is not None and reply.action not in view.legal:
                detail += f"; the late answer {format_action(reply.action)} was also illegal"
        if asks > 1 and held_last:
            detail += (
                f"; {asked_again_note(asks)}, and each time the machine kept the bot from the time it was told: "
                "this may be the machine's fault rather than the bot's"
            )
        elif asks > 1:
            detail += f"; {asked_again_note(asks)}: the machine held up the earlier asks, but the bot had its time on the last"
        elif held_last:
            detail += f"; the machine kept the bot from {judgement.machine_ms:,.0f} ms of it, and this was the last ask: this may be the machine's fault rather than the bot's"
        return view.legal[0], ("timeout", detail)
    if reply.fault is not None:
        return view.legal[0], (reply.fault, reply.detail)
    action = reply.action
    assert action is not None
    if action not in view.legal:
        legal = " ".join(format_action(a) for a in view.legal)
        return action, ("illegal", f"{why_illegal(view, action)}; legal: {legal}")
    return action, None


def _exit_detail(player: Player, wait_s: float = 1.0, poll_s: float = 0.02) -> str | None:
    """How the bot's process ended; a crash is often seen (connection lost) just before
    the process is reaped, so wait up to ``wait_s`` seconds (polling every ``poll_s``)
    for the exit code or signal."""
    give_up = monotonic() + wait_s
    while (detail := player.exit_detail()) is None and monotonic() < give_up:
        sleep(poll_s)
    return detail
