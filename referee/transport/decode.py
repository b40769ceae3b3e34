"""The bot's side of the contract: a ``DecisionRequest`` -> (SeatView, events), an Action
-> ``pb.Action`` (docs/design.md §4). The one implementation of both; the referee's
:mod:`referee.transport.codec` re-exports them and builds requests with
:func:`card_to_proto` / :func:`action_to_proto`.

A bot kit loads this module before its first decision (:mod:`referee.botkit.decide`), so
it imports only the generated messages, the game's types and the transport's errors: no
json, no ``json_format``, no grpc. Pure: no I/O.

Also the enum tables (``SUIT_TO_PB`` ...: our enum member -> proto enum number) and
:func:`enum_prefix`, shared with :mod:`referee.transport.codec`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from functools import lru_cache
from typing import Any

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game.cards import Card, Rank, Suit
from referee.game.rules import Rules
from referee.transport.errors import MalformedReply
from referee.game.views import (
    Action,
    CardPlayed,
    CardRevealed,
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
    "DECISION_TO_PB",
    "RANK_TO_PB",
    "STATUS_TO_PB",
    "SUIT_TO_PB",
    "action_to_proto",
    "card_to_proto",
    "decode_action",
    "enum_prefix",
    "request_to_view",
    "rules_from_proto",
]

# --- enums -------------------------------------------------------------------------

SUIT_TO_PB: dict[Suit, pb.Suit.ValueType] = {suit: pb.Suit.Value(suit.name) for suit in Suit}
RANK_TO_PB: dict[Rank, pb.Rank.ValueType] = {rank: pb.Rank.Value(rank.name) for rank in Rank}
STATUS_TO_PB: dict[SeatStatus, pb.SeatStatus.ValueType] = {status: pb.SeatStatus.Value("SEAT_STATUS_" + status.name) for status in SeatStatus}
DECISION_TO_PB: dict[DecisionKind, pb.DecisionKind.ValueType] = {DecisionKind.PLAY: pb.PLAY_CARD, DecisionKind.CHOOSE_TRUMP: pb.CHOOSE_TRUMP}

_SUIT_FROM_PB: dict[int, Suit] = {value: suit for suit, value in SUIT_TO_PB.items()}
_RANK_FROM_PB: dict[int, Rank] = {value: rank for rank, value in RANK_TO_PB.items()}
_STATUS_FROM_PB: dict[int, SeatStatus] = {value: status for status, value in STATUS_TO_PB.items()}
_DECISION_FROM_PB: dict[int, DecisionKind] = {value: kind for kind, value in DECISION_TO_PB.items()}


def enum_prefix(enum_type: Any) -> str:
    """``REQUIRED_TRICKS_`` for the enum whose zero value is ``REQUIRED_TRICKS_UNSPECIFIED``."""
    zero: str = enum_type.values_by_number[0].name
    return zero.removesuffix("UNSPECIFIED")


def rules_from_proto(msg: pb.Rules) -> Rules:
    """``pb.Rules`` -> Rules (inverse of :func:`referee.transport.codec.rules_to_proto`).
    Raises ValueError on an unspecified or unknown enum value. A league's rules are the
    same in every request: the decoded ones are kept by their bytes (a bot decodes each
    request's view; this saves it ~15 µs a decision)."""
    return _rules_from_bytes(msg.SerializeToString(deterministic=True))


@lru_cache(maxsize=8)
def _rules_from_bytes(data: bytes) -> Rules:
    msg = pb.Rules.FromString(data)
    values: dict[str, object] = {}
    by_name = pb.Rules.DESCRIPTOR.fields_by_name
    for field in fields(Rules):
        descriptor = by_name[field.name]
        raw = getattr(msg, field.name)
        if descriptor.enum_type is not None:
            enum_value = descriptor.enum_type.values_by_number.get(raw)
            if enum_value is None or raw == 0:
                raise ValueError(f"Rules.{field.name}: enum value {raw} is not a known {descriptor.enum_type.name}")
            values[field.name] = enum_value.name.removeprefix(enum_prefix(descriptor.enum_type)).lower()
        else:
            values[field.name] = raw
    return Rules.from_dict(values)


# --- cards -------------------------------------------------------------------------


def card_to_proto(card: Card) -> pb.Card:
    """Card -> ``pb.Card`` (a new message each call)."""
    return pb.Card(rank=RANK_TO_PB[card.rank], suit=SUIT_TO_PB[card.suit])


def _suit(value: int, where: str) -> Suit:
    suit = _SUIT_FROM_PB.get(value)
    if suit is None:
        name = "SUIT_UNSPECIFIED" if value == 0 else f"{value}, not a Suit"
        raise MalformedReply(f"{where}: suit is {name}; use SPADES, HEARTS, DIAMONDS or CLUBS")
    return suit


_CARD_FROM_PB: dict[tuple[int, int], Card] = {
    (rank_value, suit_value): Card(rank, suit) for rank, rank_value in RANK_TO_PB.items() for suit, suit_value in SUIT_TO_PB.items()
}  # the 52 cards, decoded once (a request holds ~20)


def _card(msg: pb.Card, where: str) -> Card:
    card = _CARD_FROM_PB.get((msg.rank, msg.suit))
    if card is not None:
        return card
    rank = _RANK_FROM_PB.get(msg.rank)
    if rank is None:
        name = "RANK_UNSPECIFIED" if msg.rank == 0 else f"{msg.rank}, not a Rank"
        raise MalformedReply(f"{where}: rank is {name}; use TWO (2) .. ACE (14)")
    return Card(rank, _suit(msg.suit, where))


def _opt(msg: Any, name: str) -> int | None:
    return int(getattr(msg, name)) if msg.HasField(name) else None


# --- views -------------------------------------------------------------------------


def _trick_from_proto(msg: pb.Trick) -> Trick:
    plays = tuple(
        TrickPlay(play.seat, _card(play.card, "trick play") if play.HasField("card") and not play.passed else None, play.face_down)
        for play in msg.plays
    )
    return Trick(leader=msg.leader, plays=plays, winner=_opt(msg, "winner"))


def _statuses(values: Iterable[int]) -> tuple[SeatStatus, ...]:
    try:
        return tuple(_STATUS_FROM_PB[value] for value in values)
    except KeyError as error:
        raise ValueError(f"unknown SeatStatus value {error.args[0]}") from None


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
        played = msg.card_played
        card = _card(played.card, "card_played") if played.HasField("card") else None
        return CardPlayed(seat=played.seat, card=card, face_down=played.face_down)
    if which == "card_revealed":
        return CardRevealed(seat=msg.card_revealed.seat, card=_card(msg.card_revealed.card, "card_revealed"))
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


def request_to_view(req: pb.DecisionRequest) -> tuple[SeatView, list[Event]]:
    """Inverse of :func:`referee.transport.codec.view_to_request`, for the bot kit:
    ``DecisionRequest`` -> (SeatView, events since this seat's previous request, oldest
    first). Raises ValueError (or MalformedReply) on an unspecified or unknown enum value."""
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
        legal=tuple(decode_action(action) for action in req.legal),
        to_play=tuple(v.to_play),
    )
    return view, [_event_from_proto(event) for event in req.events]


# --- actions -----------------------------------------------------------------------


def action_to_proto(action: Action) -> pb.Action:
    """Action -> ``pb.Action`` (``play`` / ``choose_trump`` / ``pass_trick``; a new message
    each call). Raises TypeError for anything else."""
    match action:
        case Play(card=card):
            return pb.Action(play=card_to_proto(card))
        case ChooseTrump(suit=None):
            return pb.Action(choose_trump=pb.TrumpChoice(no_trump=True))
        case ChooseTrump(suit=Suit() as suit):
            return pb.Action(choose_trump=pb.TrumpChoice(suit=SUIT_TO_PB[suit]))
        case Pass():
            return pb.Action(pass_trick=pb.Pass())
    raise TypeError(f"not an action: {action!r}")


def decode_action(msg: pb.Action) -> Action:
    """``pb.Action`` -> Action, whatever was asked (the kind is checked by
    :func:`referee.transport.codec.proto_to_action`). Raises :class:`MalformedReply` when
    no oneof field is set or an enum value is unspecified or unknown."""
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
    raise MalformedReply("reply has no action set: set exactly one of play, choose_trump, pass_trick")
