"""Rebuild, from a stored game, every request one seat was sent (issue 3 §3 ``--seat N``).

The record's actions are fed back through the engine (as :func:`referee.game.engine.replay`
does) and, at each decision the seat's bot was asked (its action has a measured ``ms``;
the referee's fallback moves have none and were never sent), the request is built with
the same codec call and the same "public events since this seat's last request" rule
as :func:`referee.league.match.play_match`. So the JSON is what the bot received, byte for
byte, when the time control is known.

Time fields: with the league's :class:`TimeControl`, ``time_left_ms`` is ``move_ms``
(0 without limits) and ``bank_left_ms`` is replayed from the recorded times (as
:class:`referee.game.timecontrol.SeatClock` charged them). Without it (``referee play``
stores none) both are None ("not recorded"), except at a faulted decision, whose
recorded request (fault evidence) gives them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from referee.game.cards import parse_card
from referee.game.engine import Game
from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.game.rules import Rules
from referee.game.timecontrol import Evidence, SeatClock, TimeControl
from referee.game.views import Event, SeatView, parse_action
from referee.transport.codec import request_json, request_to_view, view_to_request


@dataclass(frozen=True)
class SentRequest:
    """One request seat ``seat`` was sent.

    ``decision``: the game-wide 0-based decision number (index in ``record.actions``);
    ``view`` / ``events``: the request decoded back (what the bot saw); ``json``: the
    request as compact JSON in the codec's field order (``time_left_ms`` and
    ``bank_left_ms`` null when not recorded); ``time_left_ms`` / ``bank_left_ms`` in ms or
    None when not recorded; ``action``: the record of the decision (what was played, ms,
    fault kind); ``fault``: the fault's evidence; ``evidence_matches``: for a faulted
    decision, whether the rebuilt request equals the recorded one (None: no evidence).
    """

    decision: int
    seat: int
    view: SeatView
    events: tuple[Event, ...]
    json: str
    time_left_ms: int | None
    bank_left_ms: int | None
    action: ActionRecord
    fault: FaultRecord | None
    evidence_matches: bool | None


def asked(action: ActionRecord) -> bool:
    """Whether a bot was sent a request for this decision (the referee's own moves have no ms)."""
    return action.ms is not None


def seat_requests(record: GameRecord, seat: int, time: TimeControl | None) -> list[SentRequest]:
    """Every request seat ``seat`` was sent in ``record``, in order.

    ``time``: the league's time control, or None when the results file has none.
    Raises ValueError for a seat the game does not have; IllegalAction / ConfigError when
    the record does not replay (see :func:`referee.game.gamelog.rerun`).
    """
    if not 0 <= seat < len(record.seats):
        raise ValueError(f"seat {seat} does not exist: expected 0-{len(record.seats) - 1}")
    decks = {number: [parse_card(card) for card in deck] for number, deck in enumerate(record.decks, start=1)}
    game = Game(
        len(record.seats),
        Rules.from_dict(record.rules),
        record.seed,
        game_id=record.game_id,
        first_dealer=record.first_dealer,
        decks=decks,
    )
    forfeits: dict[int, list[int]] = {}
    for index, forfeiter in record.forfeits:
        forfeits.setdefault(index, []).append(forfeiter)
    faults = {fault.decision: fault for fault in record.faults if fault.decision is not None}
    machine = {o.decision: o.excused_ms[-1] for o in record.overloads if o.excused_ms}  # the machine's share of the last ask
    events_sent = [0] * len(record.seats)  # as SeatState.events_sent in referee.league.match
    clocks = [time.clock() for _ in record.seats] if time is not None else None
    last_ms: list[float | None] = [None] * len(record.seats)  # as SeatState.last_ms in referee.league.match
    sent: list[SentRequest] = []
    for index, action in enumerate(record.actions):
        for forfeiter in forfeits.get(index, ()):
            game.forfeit(forfeiter)
        if asked(action):
            view = game.view(action.seat)
            events = game.events[events_sent[action.seat] :]
            events_sent[action.seat] = len(game.events)
            fault = faults.get(index)
            if action.seat == seat:
                sent.append(_request(index, view, events, action, fault, time, clocks, last_ms[action.seat]))
            last_ms[action.seat] = action.ms
            if clocks is not None:
                _charge(clocks[action.seat], action, fault, machine.get(index))
        game.apply(action.seat, parse_action(action.action))
    return sent


def _request(
    index: int,
    view: SeatView,
    events: list[Event],
    action: ActionRecord,
    fault: FaultRecord | None,
    time: TimeControl | None,
    clocks: list[SeatClock] | None,
    last_ms: float | None,
) -> SentRequest:
    evidence = json.loads(fault.request) if fault is not None and fault.request else None
    time_left: int | None = None
    bank_left: int | None = None
    if time is not None and clocks is not None:
        time_left = 0 if time.unlimited else time.move_ms
        bank_left = 0 if time.unlimited else int(clocks[action.seat].bank_left_ms)
    elif evidence is not None:
        time_left, bank_left = int(evidence.get("time_left_ms", 0)), int(evidence.get("bank_left_ms", 0))
    request = view_to_request(view, events, index, time_left or 0, bank_left or 0, last_ms)
    text = request_json(request)
    matches = None if fault is None or not fault.request else text == fault.request
    if time_left is None:
        data = json.loads(text)
        data["time_left_ms"] = data["bank_left_ms"] = None
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    seen, seen_events = request_to_view(request)
    return SentRequest(index, action.seat, seen, tuple(seen_events), text, time_left, bank_left, action, fault, matches)


def _charge(clock: SeatClock, action: ActionRecord, fault: FaultRecord | None, machine_ms: float | None = None) -> None:
    """Settle the seat's clock as ``referee.league.match`` did, by the same rule
    (:meth:`SeatClock.judge`) on the evidence the record keeps: the machine's share of the
    last ask of a decision it held up (its ``OverloadRecord``). A recorded timeout was
    charged at its last ask whatever it held."""
    if action.ms is None:
        return
    timed_out = fault is not None and fault.kind == "timeout"
    transport = "timeout" if timed_out else (fault.kind if fault is not None and fault.kind != "illegal" else None)
    evidence = Evidence.recorded(machine_ms) if machine_ms is not None and not timed_out else None
    clock.judge(action.ms, transport, evidence, last_ask=True)
