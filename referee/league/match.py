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
attached (``Reply.evidence``): time the machine kept the referee or the bot from running
is not the bot's, and a decision that got no answer for that reason is asked again, with
the same number and events and a fresh deadline, up to ``MAX_ASKS`` times
(:meth:`referee.game.timecontrol.SeatClock.judge`, docs/design.md §5).
"""

from __future__ import annotations

from time import monotonic, sleep
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from referee.errors import MatchStopped
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.records import ActionRecord, FaultKind, FaultRecord, OverloadRecord
from referee.game.timecontrol import MAX_ASKS, SeatClock, TimeControl, Verdict
from referee.game.views import Action, Event, SeatView, fallback_action, format_action, why_illegal
from referee.league.lateness import held_up
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
            reply, verdict, overload = _ask(player, view, events, decision, state, state.clock.control, stopped)
            if stopped is not None and stopped():  # interrupted: the call was cut, not the bot's fault
                raise MatchStopped(f"game {game.game_id} abandoned at decision {decision}")
            if overload is not None and verdict != "timeout":
                result.overloads.append(overload)
            state.last_ms = round(reply.ms, 3)  # as recorded (ActionRecord.ms)
            action, fault = _judge(view, reply, verdict, state.clock.control)
            if fault is not None:
                kind, detail = fault
                if overload is not None and kind == "timeout":  # every ask was held up, and the last one is charged
                    detail += (
                        f"; asked {overload.asks} times, and each time the machine kept the referee or the bot from "
                        f"running for part of it ({', '.join(f'{ms:,.0f}' for ms in overload.excused_ms)} ms): "
                        "this may be the machine's fault rather than the bot's"
                    )
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


def _ask(
    player: Player,
    view: SeatView,
    events: Sequence[Event],
    decision: int,
    state: SeatState,
    time: TimeControl,
    stopped: Callable[[], bool] | None,
) -> tuple[Reply, Verdict, OverloadRecord | None]:
    """Ask ``player`` for the decision, again (same number, same events, a fresh deadline)
    while its answers are missing only because the machine was slow, up to
    :data:`MAX_ASKS` times; settle its clock (docs/design.md §5). -> (the last reply, its
    verdict, the record of the machine's lateness or None)."""
    took: list[float] = []
    excused: list[float] = []
    for ask in range(1, MAX_ASKS + 1):
        reply = player.decide(
            DecisionAsk(
                view,
                events,
                decision,
                time_left_ms=0 if time.unlimited else time.move_ms,
                bank_left_ms=0 if time.unlimited else int(state.clock.bank_left_ms),
                deadline_s=state.clock.deadline_s,
                last_decision_ms=state.last_ms,
            )
        )
        verdict, charged = state.clock.judge(reply.ms, reply.fault, reply.evidence, last_ask=ask == MAX_ASKS)
        if verdict in ("excused", "ask again"):
            held_up.note()  # the league's pace follows these (referee.league.pacing)
        if verdict in ("excused", "ask again") or took:
            took.append(round(reply.ms, 3))
            excused.append(round(reply.evidence.excused_ms(time.move_ms), 3) if reply.evidence is not None else 0.0)
        if verdict != "ask again":
            break
        if stopped is not None and stopped():
            raise MatchStopped(f"game {view.game_id} abandoned while asking decision {decision} again")
    if not took:
        return reply, verdict, None
    return reply, verdict, OverloadRecord(view.seat, player.name, decision, len(took), tuple(took), tuple(excused), round(charged, 3))


def _judge(view: SeatView, reply: Reply, verdict: Verdict, time: TimeControl) -> tuple[Action, tuple[FaultKind, str] | None]:
    """-> (the bot's action, or a placeholder when faulted; the fault kind and detail).

    The clock was settled first (``verdict``), for every reply whatever it holds
    (docs/design.md §5): a crash is a crash, but any answer after its deadline is a
    ``timeout`` even when it is also malformed or illegal, and spends the bank like a
    legal one."""
    if reply.fault == "crash":
        return view.legal[0], (reply.fault, reply.detail)
    if verdict == "timeout":
        if reply.fault == "timeout":
            return view.legal[0], ("timeout", reply.detail)
        limit = time.move_ms + time.grace_ms
        detail = f"answered in {reply.ms:.0f} ms; the limit was {time.move_ms} ms (+{limit - time.move_ms} ms grace) and the bank was empty"
        if reply.fault is not None:
            detail += f"; the late answer was also {reply.fault}: {reply.detail}"
        elif reply.action is not None and reply.action not in view.legal:
            detail += f"; the late answer {format_action(reply.action)} was also illegal"
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
