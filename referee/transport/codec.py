"""Pure conversion between the referee's data and the bot contract's messages.

``protos/knockout_whist/v1/bot.proto`` <-> :mod:`referee.views` / :mod:`referee.cards` /
:mod:`referee.rules`. No I/O, no grpc; imports the generated message classes only. It
never imports ``referee.game``: a request is built from a :class:`SeatView` alone, so it
cannot carry another seat's cards (DESIGN.md §3).

Referee side: :func:`view_to_request`, :func:`proto_to_action` (raises
:class:`MalformedReply`), :func:`request_json`. Bot side (the bot kit):
:func:`request_to_view`, :func:`action_to_proto`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import fields
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.cards import CARDS, Card, Rank, Suit
from referee.rules import Rules
from referee.transport.errors import MalformedReply
from referee.views import (
    Action,
    CardPlayed,
    ChooseTrump,
    DecisionKind,
    Event,
    GameEnded,
    Pass,
    Passed,
    Play,
    RoundEnded,
    RoundStarted,
    SeatStatus,
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
    "message_json",
    "proto_to_action",
    "request_json",
    "request_to_view",
    "rules_to_proto",
    "view_to_request",
]

# --- enums -------------------------------------------------------------------------

_SUIT_TO_PB: dict[Suit, pb.Suit.ValueType] = {suit: pb.Suit.Value(suit.name) for suit in Suit}
_SUIT_FROM_PB: dict[int, Suit] = {value: suit for suit, value in _SUIT_TO_PB.items()}
_RANK_TO_PB: dict[Rank, pb.Rank.ValueType] = {rank: pb.Rank.Value(rank.name) for rank in Rank}
_RANK_FROM_PB: dict[int, Rank] = {value: rank for rank, value in _RANK_TO_PB.items()}
_STATUS_TO_PB: dict[SeatStatus, pb.SeatStatus.ValueType] = {status: pb.SeatStatus.Value("SEAT_STATUS_" + status.name) for status in SeatStatus}
_STATUS_FROM_PB: dict[int, SeatStatus] = {value: status for status, value in _STATUS_TO_PB.items()}
_DECISION_TO_PB: dict[DecisionKind, pb.DecisionKind.ValueType] = {DecisionKind.PLAY: pb.PLAY_CARD, DecisionKind.CHOOSE_TRUMP: pb.CHOOSE_TRUMP}
_DECISION_FROM_PB: dict[int, DecisionKind] = {value: kind for kind, value in _DECISION_TO_PB.items()}


def _enum_prefix(enum_type: Any) -> str:
    """``REQUIRED_TRICKS_`` for the enum whose zero value is ``REQUIRED_TRICKS_UNSPECIFIED``."""
    zero: str = enum_type.values_by_number[0].name
    return zero.removesuffix("UNSPECIFIED")


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
            name = _enum_prefix(descriptor.enum_type) + str(value).upper()
            enum_value = descriptor.enum_type.values_by_name.get(name)
            if enum_value is None:
                raise KeyError(f"Rules.{field.name} = {value!r} has no enum value {name} in bot.proto")
            setattr(msg, field.name, enum_value.number)
        else:
            setattr(msg, field.name, value)
    return msg


@functools.lru_cache(maxsize=64)
def _rules_proto(rules: Rules) -> pb.Rules:
    """:func:`rules_to_proto`, built once per rule set. Shared: only ever copied into a
    request, never changed."""
    return rules_to_proto(rules)


def rules_from_proto(msg: pb.Rules) -> Rules:
    """``pb.Rules`` -> Rules (inverse of :func:`rules_to_proto`). Raises ValueError on an
    unspecified or unknown enum value."""
    values: dict[str, object] = {}
    by_name = pb.Rules.DESCRIPTOR.fields_by_name
    for field in fields(Rules):
        descriptor = by_name[field.name]
        raw = getattr(msg, field.name)
        if descriptor.enum_type is not None:
            enum_value = descriptor.enum_type.values_by_number.get(raw)
            if enum_value is None or raw == 0:
                raise ValueError(f"Rules.{field.name}: enum value {raw} is not a known {descriptor.enum_type.name}")
            values[field.name] = enum_value.name.removeprefix(_enum_prefix(descriptor.enum_type)).lower()
        else:
            values[field.name] = raw
    return Rules.from_dict(values)


# --- cards -------------------------------------------------------------------------


def card_to_proto(card: Card) -> pb.Card:
    """Card -> ``pb.Card``."""
    return pb.Card(rank=_RANK_TO_PB[card.rank], suit=_SUIT_TO_PB[card.suit])


# Built once; shared, so only ever copied into a message (a constructor argument, add(),
# CopyFrom), never changed: building a message costs far more than copying one.
_CARD_PB: dict[Card, pb.Card] = {card: card_to_proto(card) for card in CARDS}


def _suit(value: int, where: str) -> Suit:
    suit = _SUIT_FROM_PB.get(value)
    if suit is None:
        name = "SUIT_UNSPECIFIED" if value == 0 else f"{value}, not a Suit"
        raise MalformedReply(f"{where}: suit is {name}; use SPADES, HEARTS, DIAMONDS or CLUBS")
    return suit


def _card(msg: pb.Card, where: str) -> Card:
    rank = _RANK_FROM_PB.get(msg.rank)
    if rank is None:
        name = "RANK_UNSPECIFIED" if msg.rank == 0 else f"{msg.rank}, not a Rank"
        raise MalformedReply(f"{where}: rank is {name}; use TWO (2) .. ACE (14)")
    return Card(rank, _suit(msg.suit, where))


def _opt(msg: Any, name: str) -> int | None:
    return int(getattr(msg, name)) if msg.HasField(name) else None


# --- views -------------------------------------------------------------------------


def _trick_to_proto(trick: Trick) -> pb.Trick:
    msg = pb.Trick(leader=trick.leader)
    for play in trick.plays:
        if play.card is None:
            msg.plays.add(seat=play.seat, passed=True)
        else:
            msg.plays.add(seat=play.seat, card=_CARD_PB[play.card])
    if trick.winner is not None:
        msg.winner = trick.winner
    return msg


_SHARED_MAX = 256  # entries of each identity cache below; emptied when full


def _by_identity(cache: dict[int, tuple[Any, Any]], item: Any, build: Any) -> Any:
    """``build(item)``, made once per object ``item`` and then shared (only ever copied).
    Keyed by identity: the entry keeps ``item`` alive, so its id cannot be reused."""
    entry = cache.get(id(item))
    if entry is not None and entry[0] is item:
        return entry[1]
    if len(cache) >= _SHARED_MAX:
        cache.clear()
    msg = build(item)
    cache[id(item)] = (item, msg)
    return msg


_COMPLETED: dict[int, tuple[Trick, pb.Trick]] = {}
_EVENTS: dict[int, tuple[Event, pb.Event]] = {}


def _completed_trick_to_proto(trick: Trick) -> pb.Trick:
    """:func:`_trick_to_proto` of a completed trick: the engine hands out the same Trick
    object in every view of the round."""
    msg: pb.Trick = _by_identity(_COMPLETED, trick, _trick_to_proto)
    return msg


def _shared_event_proto(event: Event) -> pb.Event:
    """:func:`_event_to_proto`, once per event object: each event goes to every seat, and
    the engine shares its card-played events between games."""
    msg: pb.Event = _by_identity(_EVENTS, event, _event_to_proto)
    return msg


def _trick_from_proto(msg: pb.Trick) -> Trick:
    plays = tuple(
        TrickPlay(play.seat, _card(play.card, "trick play") if play.HasField("card") and not play.passed else None)
        for play in msg.plays
    )
    return Trick(leader=msg.leader, plays=plays, winner=_opt(msg, "winner"))


def _statuses(values: Iterable[int]) -> tuple[SeatStatus, ...]:
    try:
        return tuple(_STATUS_FROM_PB[value] for value in values)
    except KeyError as error:
        raise ValueError(f"unknown SeatStatus value {error.args[0]}") from None


def _fill_view(msg: pb.SeatView, view: SeatView) -> None:
    """Set the empty ``msg`` from ``view`` (in place: a request's own ``view`` field, so
    the finished message is not copied into the request again)."""
    msg.game_id = view.game_id
    msg.seat = view.seat
    msg.num_seats = view.num_seats
    msg.rules.CopyFrom(_rules_proto(view.rules))
    msg.status.extend([_STATUS_TO_PB[status] for status in view.status])
    msg.dealer = view.dealer
    msg.round_number = view.round_number
    msg.cards_dealt = view.hand_size
    msg.hand.extend([_CARD_PB[card] for card in view.hand])
    msg.completed_tricks.extend([_completed_trick_to_proto(trick) for trick in view.completed_tricks])
    msg.tricks_won.extend(view.tricks_won)
    msg.dog_life_used = view.dog_life_used
    if view.no_trump:
        msg.trump_state = pb.TRUMP_STATE_NO_TRUMP
    elif view.trump is not None:
        msg.trump_state = pb.TRUMP_STATE_SUIT
        msg.trump = _SUIT_TO_PB[view.trump]
    else:
        msg.trump_state = pb.TRUMP_STATE_UNDECIDED
    if view.turn_up is not None:
        msg.turn_up.CopyFrom(_CARD_PB[view.turn_up])
    if view.trump_chooser is not None:
        msg.trump_chooser = view.trump_chooser
    if view.current_trick is not None:
        msg.current_trick.SetInParent()  # present even when it has no plays yet
        msg.current_trick.CopyFrom(_trick_to_proto(view.current_trick))


def _event_to_proto(event: Event) -> pb.Event:
    msg = pb.Event()
    match event:
        case RoundStarted():
            inner = msg.round_started
            inner.SetInParent()
            inner.round_number = event.round_number
            inner.dealer = event.dealer
            inner.hand_size = event.hand_size
            inner.status.extend(_STATUS_TO_PB[status] for status in event.status)
            if event.turn_up is not None:
                inner.turn_up.CopyFrom(_CARD_PB[event.turn_up])
            if event.trump_chooser is not None:
                inner.trump_chooser = event.trump_chooser
        case TrumpChosen():
            chosen = msg.trump_chosen
            chosen.SetInParent()
            if event.seat is not None:
                chosen.seat = event.seat
            if event.suit is None:
                chosen.no_trump = True
            else:
                chosen.suit = _SUIT_TO_PB[event.suit]
        case CardPlayed():
            msg.card_played.SetInParent()
            msg.card_played.seat = event.seat
            msg.card_played.card.CopyFrom(_CARD_PB[event.card])
        case Passed():
            msg.passed.SetInParent()
            msg.passed.seat = event.seat
        case TrickWon():
            msg.trick_won.SetInParent()
            msg.trick_won.seat = event.seat
            msg.trick_won.trick_number = event.trick_number
        case RoundEnded():
            ended = msg.round_ended
            ended.SetInParent()
            ended.round_number = event.round_number
            ended.tricks_won.extend(event.tricks_won)
            ended.knocked_out.extend(event.knocked_out)
            ended.dogs.extend(event.dogs)
            ended.forfeited.extend(event.forfeited)
        case GameEnded():
            over = msg.game_ended
            over.SetInParent()
            if event.winner is not None:
                over.winner = event.winner
            over.placements.extend(event.placements)
        case _:
            raise TypeError(f"not an event: {event!r}")
    return msg


def _event_from_proto(msg: pb.Event) -> Event:
    which = msg.WhichOneof("event")
    if which == "round_started":
        started = msg.round_started
        return RoundStarted(
            round_number=started.round_number,
            dealer=started.dealer,
            hand_size=started.hand_size,
            status=_statuses(started.status),
            turn_up=_card(started.turn_up, "round_started.turn_up") if started.HasField("turn_up") else None,
            trump_chooser=_opt(started, "trump_chooser"),
        )
    if which == "trump_chosen":
        chosen = msg.trump_chosen
        return TrumpChosen(seat=_opt(chosen, "seat"), suit=None if chosen.no_trump else _suit(chosen.suit, "trump_chosen"))
    if which == "card_played":
        return CardPlayed(seat=msg.card_played.seat, card=_card(msg.card_played.card, "card_played"))
    if which == "passed":
        return Passed(seat=msg.passed.seat)
    if which == "trick_won":
        return TrickWon(seat=msg.trick_won.seat, trick_number=msg.trick_won.trick_number)
    if which == "round_ended":
        ended = msg.round_ended
        return RoundEnded(
            round_number=ended.round_number,
            tricks_won=tuple(ended.tricks_won),
            knocked_out=tuple(ended.knocked_out),
            dogs=tuple(ended.dogs),
            forfeited=tuple(ended.forfeited),
        )
    if which == "game_ended":
        return GameEnded(winner=_opt(msg.game_ended, "winner"), placements=tuple(msg.game_ended.placements))
    raise ValueError("event has no field set")


def view_to_request(
    view: SeatView,
    events: Sequence[Event],
    decision_number: int,
    time_left_ms: int,
    bank_left_ms: int,
) -> pb.DecisionRequest:
    """Build the ``DecisionRequest`` sent to seat ``view.seat``.

    ``events``: the public events since this seat's previous request, oldest first.
    ``decision_number``: game-wide, 0-based. ``time_left_ms``: time for this decision in
    ms (0 = no limit); ``bank_left_ms``: time bank left in ms (0 = none). The seat's
    ``decision`` and ``legal`` actions go to the request's top level. Everything comes from
    ``view`` and ``events``, which hold no other seat's cards (DESIGN.md §3).
    """
    request = pb.DecisionRequest(
        game_id=view.game_id,
        decision_number=decision_number,
        events=[_shared_event_proto(event) for event in events],
        time_left_ms=max(0, int(time_left_ms)),
        bank_left_ms=max(0, int(bank_left_ms)),
        decision=_DECISION_TO_PB[view.decision] if view.decision is not None else pb.DECISION_KIND_UNSPECIFIED,
        legal=[_legal_proto(action) for action in view.legal],
    )
    request.view.SetInParent()
    _fill_view(request.view, view)
    return request


def request_to_view(req: pb.DecisionRequest) -> tuple[SeatView, list[Event]]:
    """Inverse of :func:`view_to_request` for the bot kit: ``DecisionRequest`` ->
    (SeatView, events since this seat's previous request). Raises ValueError (or
    MalformedReply) on an unspecified or unknown enum value."""
    v = req.view
    if v.trump_state == pb.TRUMP_STATE_SUIT:
        trump: Suit | None = _suit(v.trump, "view.trump")
        no_trump = False
    elif v.trump_state == pb.TRUMP_STATE_NO_TRUMP:
        trump, no_trump = None, True
    elif v.trump_state == pb.TRUMP_STATE_UNDECIDED:
        trump, no_trump = None, False
    else:
        raise ValueError(f"view.trump_state {v.trump_state} is not a known TrumpState")
    if req.decision == pb.DECISION_KIND_UNSPECIFIED:
        decision = None
    elif req.decision in _DECISION_FROM_PB:
        decision = _DECISION_FROM_PB[req.decision]
    else:
        raise ValueError(f"decision {req.decision} is not a known DecisionKind")
    view = SeatView(
        game_id=v.game_id,
        seat=v.seat,
        num_seats=v.num_seats,
        rules=rules_from_proto(v.rules),
        status=_statuses(v.status),
        dealer=v.dealer,
        round_number=v.round_number,
        hand_size=v.cards_dealt,
        trump=trump,
        no_trump=no_trump,
        turn_up=_card(v.turn_up, "view.turn_up") if v.HasField("turn_up") else None,
        trump_chooser=_opt(v, "trump_chooser"),
        hand=tuple(_card(card, "view.hand") for card in v.hand),
        current_trick=_trick_from_proto(v.current_trick) if v.HasField("current_trick") else None,
        completed_tricks=tuple(_trick_from_proto(trick) for trick in v.completed_tricks),
        tricks_won=tuple(v.tricks_won),
        dog_life_used=v.dog_life_used,
        decision=decision,
        legal=tuple(_decode_action(action) for action in req.legal),
    )
    return view, [_event_from_proto(event) for event in req.events]


# --- actions -----------------------------------------------------------------------


def action_to_proto(action: Action) -> pb.Action:
    """Action -> ``pb.Action`` (``play`` / ``choose_trump`` / ``pass_trick``)."""
    match action:
        case Play(card=card):
            return pb.Action(play=card_to_proto(card))
        case ChooseTrump(suit=suit):
            if suit is None:
                return pb.Action(choose_trump=pb.TrumpChoice(no_trump=True))
            return pb.Action(choose_trump=pb.TrumpChoice(suit=_SUIT_TO_PB[suit]))
        case Pass():
            return pb.Action(pass_trick=pb.Pass())
    raise TypeError(f"not an action: {action!r}")


_ACTION_PB: dict[Action, pb.Action] = {}


def _legal_proto(action: Action) -> pb.Action:
    """:func:`action_to_proto`, built once per action (there are 59); shared, only copied."""
    msg = _ACTION_PB.get(action)
    if msg is None:
        msg = _ACTION_PB[action] = action_to_proto(action)
    return msg


_ONEOF_HINT = "set exactly one of play, choose_trump, pass_trick"


def _decode_action(msg: pb.Action) -> Action:
    which = msg.WhichOneof("action")
    if which == "play":
        return Play(_card(msg.play, "play"))
    if which == "pass_trick":
        return Pass()
    if which == "choose_trump":
        choice = msg.choose_trump.WhichOneof("choice")
        if choice == "suit":
            return ChooseTrump(_suit(msg.choose_trump.suit, "choose_trump"))
        if choice == "no_trump":
            if not msg.choose_trump.no_trump:
                raise MalformedReply("choose_trump.no_trump is false: set no_trump = true, or set suit instead")
            return ChooseTrump(None)
        raise MalformedReply("choose_trump has neither suit nor no_trump set")
    raise MalformedReply(f"reply has no action set: {_ONEOF_HINT}")


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
    if which is None:
        raise MalformedReply(f"reply has no action set: {_ONEOF_HINT}")
    if view.decision is not None and _KIND_OF[which] is not view.decision:
        raise MalformedReply(f"reply sets {which} but the decision asked was {_ASKED[view.decision]}")
    return _decode_action(msg)


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


def request_json(req: Message) -> str:
    """The request as sent, as compact JSON (fault evidence, DESIGN.md §5)."""
    return message_json(req)
