"""Pure conversion between the referee's data and the bot contract's messages.

``protos/knockout_whist/v1/bot.proto`` <-> :mod:`referee.views` / :mod:`referee.cards` /
:mod:`referee.rules`. No I/O, no grpc; imports the generated message classes only. It
never imports ``referee.game``: a request is built from a :class:`SeatView` alone, so it
cannot carry another seat's cards (DESIGN.md §3).

Encoding a request has one implementation, :mod:`referee.transport.wire` (wire bytes
joined from cached parts); the request messages here are parsed from its bytes. Decoding
a request and encoding an answer (the bot's side) live in :mod:`referee.transport.decode`,
which a bot loads without this module's json and wire imports; re-exported here.

Referee side: :func:`view_to_request_bytes` (what is sent), :func:`view_to_request` (the
same request as a message), :func:`proto_to_action` (raises :class:`MalformedReply`),
:func:`request_json`. Bot side (re-exported from :mod:`referee.transport.decode`):
:func:`request_to_view`, :func:`action_to_proto`, :func:`card_to_proto`,
:func:`rules_from_proto`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.transport.decode import (
    action_to_proto,
    card_to_proto,
    decode_action,
    request_to_view,
    rules_from_proto,
)
from referee.transport.errors import MalformedReply
from referee.transport.wire import rules_to_proto, view_to_request_bytes
from referee.views import Action, DecisionKind, Event, SeatView

__all__ = [
    "MalformedReply",
    "action_to_proto",
    "card_to_proto",
    "message_json",
    "proto_to_action",
    "request_json",
    "request_to_view",
    "rules_from_proto",
    "rules_to_proto",
    "view_to_request",
    "view_to_request_bytes",
]

# --- the request -------------------------------------------------------------------


def view_to_request(
    view: SeatView,
    events: Sequence[Event],
    decision_number: int,
    time_left_ms: int,
    bank_left_ms: int,
) -> pb.DecisionRequest:
    """The ``DecisionRequest`` sent to seat ``view.seat``, as a message: parsed from
    :func:`view_to_request_bytes` (same arguments, same errors), so it is what is sent.
    A fresh message each call; changing it changes nothing else."""
    return pb.DecisionRequest.FromString(view_to_request_bytes(view, events, decision_number, time_left_ms, bank_left_ms))


# --- the reply ---------------------------------------------------------------------

_KIND_OF = {"play": DecisionKind.PLAY, "pass_trick": DecisionKind.PLAY, "choose_trump": DecisionKind.CHOOSE_TRUMP}
_ASKED = {DecisionKind.PLAY: "PLAY_CARD: answer play (a dog may answer pass_trick)", DecisionKind.CHOOSE_TRUMP: "CHOOSE_TRUMP: answer choose_trump"}


def proto_to_action(msg: pb.Action, view: SeatView) -> Action:
    """Decode a bot's ``pb.Action`` answering ``view``'s decision.

    Raises :class:`MalformedReply` (fault ``malformed``, DESIGN.md §5) with a message a
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
    """The request as sent, as compact JSON (fault evidence, DESIGN.md §5): a
    ``DecisionRequest`` message, or its wire bytes (:func:`view_to_request_bytes`).
    Raises ``google.protobuf.message.DecodeError`` on bytes that are not a request."""
    if isinstance(req, bytes):
        req = pb.DecisionRequest.FromString(req)
    return message_json(req)
