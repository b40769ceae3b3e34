"""Pure conversion between the referee's data and the bot contract's messages.

``protos/knockout_whist/v1/bot.proto`` <-> :mod:`referee.game.views` / :mod:`referee.game.cards` /
:mod:`referee.game.rules`. No I/O, no grpc; imports the generated message classes only. It
never imports ``referee.game.engine``: a request is built from a :class:`SeatView` alone, so it
cannot carry another seat's cards (docs/design.md §3).

Requests are built with the generated classes (the protobuf library encodes them).
Decoding a request and encoding an answer (the bot's side) live in
:mod:`referee.transport.decode`, which a bot loads without this module's json import;
re-exported here.

Referee side: :func:`view_to_request` (what is sent), :func:`proto_to_action` (raises
:class:`MalformedReply`), :func:`request_json`. Bot side (re-exported from
:mod:`referee.transport.decode`): :func:`request_to_view`, :func:`action_to_proto`,
:func:`card_to_proto`, :func:`rules_from_proto`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game.cards import CARDS, Card
from referee.game.rules import Rules
from referee.transport.decode import (
    DECISION_TO_PB,
    STATUS_TO_PB,
    SUIT_TO_PB,
    action_to_proto,
    card_to_proto,
    decode_action,
    enum_prefix,
    request_to_view,
    rules_from_proto,
)
from referee.transport.errors import MalformedReply
from referee.game.views import (
    Action,
    CardPlayed,
    CardRevealed,
    DecisionKind,
    Event,
    GameEnded,
    Passed,
    RoundEnded,
    RoundStarted,
    SeatView,
    Trick,
    TrickPlay,
    TrickWon,
    TrumpChosen,
)

__all__ = [
    "MalformedReply",
    "action_to_proto",
    "card_to_proto",
    "event_to_proto",
    "message_json",
    "proto_to_action",
    "request_json",
    "request_to_view",
    "rules_from_proto",
    "rules_to_proto",
    "view_to_request",
]

# --- rules -------------------------------------------------------------------------


def rules_to_proto(rules: Rules) -> pb.Rules:
    """Rules -> ``pb.Rules``. A string variant ``"any_round"`` of field ``dog_life`` maps to
    enum value ``DOG_LIFE_ANY_ROUND``. Raises KeyError naming a Rules field or value the
    proto lacks (add it to bot.proto, then ``make proto``)."""
    msg = pb.Rules()
    by_name = pb.Rules.DESCRIPTOR.fields_by_name
    for field in fields(Rules):
        value = getattr(rules, field.name)
        descriptor = by_name.get(field.name)
        if descriptor is None:
            raise KeyError(f"Rules.{field.name} has no field in bot.proto message Rules")
        if descriptor.enum_type is not None:
            name = enum_prefix(descriptor.enum_type) + str(value).upper()
            enum_value = descriptor.enum_type.values_by_name.get(name)
            if enum_value is None:
                raise KeyError(f"Rules.{field.name} = {value!r} has no enum value {name} in bot.proto")
            setattr(msg, field.name, enum_value.number)
        else:
            setattr(msg, field.name, value)
    return msg


@functools.lru_cache(maxsize=16)
def _rules_proto(rules: Rules) -> pb.Rules:
    """:func:`rules_to_proto`, once per rule set (a league has one): only ever copied into
    a request, never changed."""
    return rules_to_proto(rules)


# --- cards, tricks and events -------------------------------------------------------

_CARD: dict[Card, pb.Card] = {card: card_to_proto(card) for card in CARDS}
"""The 52 ``Card`` messages: only ever copied into a request, never changed."""


def _play_to_proto(play: TrickPlay) -> pb.TrickPlay:
    if play.face_down:  # the card is None when this seat may not see it yet (docs/rules.md W24)
        return pb.TrickPlay(seat=play.seat, card=None if play.card is None else _CARD[play.card], face_down=True)
    if play.card is None:
        return pb.TrickPlay(seat=play.seat, passed=True)
    return pb.TrickPlay(seat=play.seat, card=_CARD[play.card])


def _trick_to_proto(trick: Trick) -> pb.Trick:
    plays = [_play_to_proto(play) for play in trick.plays]
    return pb.Trick(leader=trick.leader, plays=plays, winner=trick.winner)


def event_to_proto(event: Event) -> pb.Event:
    """Event -> ``pb.Event`` (exactly one oneof field set). Raises TypeError for anything
    else."""
    match event:
        case CardPlayed():
            card = None if event.card is None else _CARD[event.card]
            return pb.Event(card_played=pb.CardPlayed(seat=event.seat, card=card, face_down=event.face_down))
        case CardRevealed():
            return pb.Event(card_revealed=pb.CardRevealed(seat=event.seat, card=_CARD[event.card]))
        case Passed():
            return pb.Event(passed=pb.Passed(seat=event.seat))
        case TrickWon():
            return pb.Event(trick_won=pb.TrickWon(seat=event.seat, trick_number=event.trick_number))
        case RoundStarted():
            started = pb.RoundStarted(
                round_number=event.round_number,
                dealer=event.dealer,
                hand_size=event.hand_size,
                status=[STATUS_TO_PB[status] for status in event.status],
                turn_up=None if event.turn_up is None else _CARD[event.turn_up],
                trump_chooser=event.trump_chooser,
            )
            return pb.Event(round_started=started)
        case TrumpChosen():
            if event.suit is None:
                return pb.Event(trump_chosen=pb.TrumpChosen(seat=event.seat, no_trump=True))
            return pb.Event(trump_chosen=pb.TrumpChosen(seat=event.seat, suit=SUIT_TO_PB[event.suit]))
        case RoundEnded():
            ended = pb.RoundEnded(
                round_number=event.round_number,
                tricks_won=event.tricks_won,
                knocked_out=event.knocked_out,
                dogs=event.dogs,
                forfeited=event.forfeited,
            )
            return pb.Event(round_ended=ended)
        case GameEnded():
            return pb.Event(game_ended=pb.GameEnded(winner=event.winner, placements=event.placements))
    raise TypeError(f"not an event: {event!r}")


# --- the request -------------------------------------------------------------------

# The request is parsed from the protobuf encoding of its parts, joined: the protobuf
# encoding of a message is the concatenation of its fields, and parsing concatenated
# encodings merges them (repeated fields append in order, singular ones are set), so the
# request equals the one built field by field, and the library serializes it again the
# same way (tests/transport/test_wire.py checks the bytes). The parts most requests repeat
# are encoded once each, by the generated classes, and looked up by object identity: the
# engine hands out the same cards, events, tricks and actions in view after view and seat
# after seat (hashing those frozen dataclasses of ``IntEnum`` fields, as a value-keyed
# cache must, runs Python code per field). What this saves is measured in bench/NOTES.md.


def _by_identity(encode: Callable[[Any], bytes], size: int) -> Callable[[Any], bytes]:
    """``encode``, memoised by the argument's identity. The argument is kept with its bytes,
    so its id cannot be reused while the entry exists; the table is emptied when it holds
    ``size`` entries. Thread-safe under the GIL (a race only encodes twice)."""
    memo: dict[int, tuple[Any, bytes]] = {}

    def get(obj: Any) -> bytes:
        hit = memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        encoded = encode(obj)
        if len(memo) >= size:
            memo.clear()
        memo[id(obj)] = (obj, encoded)
        return encoded

    return get


def _in_request(**request_fields: Any) -> bytes:
    return pb.DecisionRequest(**request_fields).SerializeToString()


def _in_view(**view_fields: Any) -> bytes:
    return _in_request(view=pb.SeatView(**view_fields))


_rules_part = functools.lru_cache(maxsize=16)(lambda rules: _in_view(rules=_rules_proto(rules)))
def _by_value(encode: Callable[[Any], bytes], size: int) -> Callable[[Any], bytes]:
    """``encode`` memoised by identity, then by value (the same event, play or action
    recurs from game to game in new objects)."""
    return _by_identity(functools.lru_cache(maxsize=size)(encode), 4096)


_hand_part = _by_identity(lambda card: _in_view(hand=[_CARD[card]]), 1024)
# The current trick is new after every action, its plays are not: it is sent as its leader
# and winner, then one part per play (the parts merge into one ``current_trick``).
_current_trick_head = functools.lru_cache(maxsize=256)(
    lambda leader, winner: _in_view(current_trick=pb.Trick(leader=leader, winner=winner))
)
_current_play_part = _by_value(lambda play: _in_view(current_trick=pb.Trick(plays=[_play_to_proto(play)])), 4096)
_completed_trick_part = _by_identity(lambda trick: _in_view(completed_tricks=[_trick_to_proto(trick)]), 4096)
_event_part = _by_value(lambda event: _in_request(events=[event_to_proto(event)]), 4096)
_legal_part = _by_value(lambda action: _in_request(legal=[action_to_proto(action)]), 4096)


def _trump_fields(view: SeatView) -> dict[str, Any]:
    if view.no_trump:
        return {"trump_state": pb.TRUMP_STATE_NO_TRUMP}
    if view.trump is None:
        return {"trump_state": pb.TRUMP_STATE_UNDECIDED}
    return {"trump_state": pb.TRUMP_STATE_SUIT, "trump": SUIT_TO_PB[view.trump]}


def view_to_request(
    view: SeatView,
    events: Sequence[Event],
    decision_number: int,
    time_left_ms: int,
    bank_left_ms: int,
    last_decision_ms: float | None = None,
) -> pb.DecisionRequest:
    """The ``DecisionRequest`` sent to seat ``view.seat`` (a new message each call).

    ``events``: the public events since this seat's previous request, oldest first.
    ``decision_number``: game-wide, 0-based. ``time_left_ms``: time for this decision in
    ms (0 = no limit); ``bank_left_ms``: time bank left in ms (0 = none); negative times
    (and fractions of a ms) are sent as whole ms, at least 0. ``last_decision_ms``: the
    measured time of this seat's previous decision in this game, in ms (rounded to whole
    ms; None: unset, its first decision). The seat's ``decision`` and
    ``legal`` actions go to the request's top level. Everything comes from ``view`` and
    ``events``, which hold no other seat's cards (docs/design.md §3). Raises ValueError for a
    number that is not a uint32.
    """
    seat_view = pb.SeatView(
        game_id=view.game_id,
        seat=view.seat,
        num_seats=view.num_seats,
        status=[STATUS_TO_PB[status] for status in view.status],
        dealer=view.dealer,
        round_number=view.round_number,
        cards_dealt=view.hand_size,
        turn_up=None if view.turn_up is None else _CARD[view.turn_up],
        trump_chooser=view.trump_chooser,
        tricks_won=view.tricks_won,
        dog_life_used=view.dog_life_used,
        trick_number=0 if view.current_trick is None else view.trick_number,
        to_play=view.to_play,
        **_trump_fields(view),
    )
    head = pb.DecisionRequest(
        game_id=view.game_id,
        decision_number=decision_number,
        view=seat_view,
        time_left_ms=max(0, int(time_left_ms)),
        bank_left_ms=max(0, int(bank_left_ms)),
        decision=pb.DECISION_KIND_UNSPECIFIED if view.decision is None else DECISION_TO_PB[view.decision],
        last_decision_ms=None if last_decision_ms is None else max(0, round(last_decision_ms)),
    )
    parts = [head.SerializeToString(), _rules_part(view.rules)]
    parts += [_hand_part(card) for card in view.hand]
    if view.current_trick is not None:
        parts.append(_current_trick_head(view.current_trick.leader, view.current_trick.winner))
        parts += [_current_play_part(play) for play in view.current_trick.plays]
    parts += [_completed_trick_part(trick) for trick in view.completed_tricks]
    parts += [_event_part(event) for event in events]
    parts += [_legal_part(action) for action in view.legal]
    return pb.DecisionRequest.FromString(b"".join(parts))


# --- the reply ---------------------------------------------------------------------

_KIND_OF = {"play": DecisionKind.PLAY, "pass_trick": DecisionKind.PLAY, "choose_trump": DecisionKind.CHOOSE_TRUMP}
_ASKED = {DecisionKind.PLAY: "PLAY_CARD: answer play (a dog may answer pass_trick)", DecisionKind.CHOOSE_TRUMP: "CHOOSE_TRUMP: answer choose_trump"}


def proto_to_action(msg: pb.Action, view: SeatView) -> Action:
    """Decode a bot's ``pb.Action`` answering ``view``'s decision.

    Raises :class:`MalformedReply` (fault ``malformed``, docs/design.md §5) with a message a
    student can act on when no oneof field is set, an enum value is unspecified or
    unknown, or the action is of the wrong kind (a card when trump was asked, a trump
    choice or pass when a card was asked). Legality (card in hand, follow suit, a trump
    choice not offered, a pass by a non-dog) is NOT checked here: that is the match's
    ``illegal`` fault.
    """
    which = msg.WhichOneof("action")
    if which is not None and view.decision is not None and _KIND_OF[which] is not view.decision:
        raise MalformedReply(f"reply sets {which} but the decision asked was {_ASKED[view.decision]}")
    return decode_action(msg)  # raises MalformedReply when no action is set


# --- JSON evidence -----------------------------------------------------------------


def _in_field_order(descriptor: Any, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (MessageToDict output) with keys in .proto field-number order, recursively."""
    ordered: dict[str, Any] = {}
    for field in sorted(descriptor.fields, key=lambda f: f.number):
        if field.name not in data:
            continue
        value = data[field.name]
        if field.message_type is not None and field.message_type.fields:
            if isinstance(value, list):
                value = [_in_field_order(field.message_type, item) for item in value]
            elif isinstance(value, dict):
                value = _in_field_order(field.message_type, value)
        ordered[field.name] = value
    return ordered


def message_json(msg: Message) -> str:
    """Compact JSON of any message: proto field names in field-number order, enum names,
    fields at their default value included (so seat 0 shows), no spaces. Deterministic."""
    data = json_format.MessageToDict(msg, always_print_fields_with_no_presence=True, preserving_proto_field_name=True)
    return json.dumps(_in_field_order(msg.DESCRIPTOR, data), separators=(",", ":"), ensure_ascii=False)


def request_json(req: Message | bytes) -> str:
    """The request as sent, as compact JSON (fault evidence, docs/design.md §5): a
    ``DecisionRequest`` message, or its wire bytes. Raises
    ``google.protobuf.message.DecodeError`` on bytes that are not a request."""
    if isinstance(req, bytes):
        req = pb.DecisionRequest.FromString(req)
    return message_json(req)
