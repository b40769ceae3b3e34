"""The ``DecisionRequest`` as protobuf wire bytes, joined from cached encodings.

Benchmark B2 (referee CPU per decision): building the request message field by field and
serializing it cost ~30 µs; joining the wire encodings of its parts, each part encoded
once (a card, an action, a trick play, a completed trick, an event, the rule set), costs
~5 µs. The bytes go to gRPC as they are (an identity request serializer);
:func:`referee.transport.codec.view_to_request` parses them into the message.

Protobuf wire format (protobuf.dev, "Encoding"): a message is the concatenation of its
fields; a field is its key (field number << 3 | wire type, a varint) then either a varint
(VARINT: uint32, bool, enum) or a varint length and that many bytes (LEN: a string, a
message, a packed repeated scalar). As the protobuf serializer does, fields go in
field-number order and proto3 omits a scalar at its default (0, false, "", empty repeated)
unless the field has presence (``optional``, a oneof member, a message): so the bytes
equal ``SerializeToString()`` of the message parsed from them. Field numbers and wire
types are read from the generated descriptors, never written here.

Pure: no I/O, no grpc. A request is built from a :class:`SeatView` and the public events
alone, so it cannot carry another seat's cards (DESIGN.md §3).

Caches, each emptied when it reaches :data:`CACHE_MAX` entries (a league sends 100,000s
of requests): by value for small hashable keys (cards, numbers, tuples of ints, game ids,
rule sets); by identity for objects the engine hands out in view after view (trick plays,
completed tricks, events, legal actions); and the SeatView's leading fields (game id ..
trump chooser) by value plus the identity of the rule set and status tuple. An entry keyed
by an object's id holds that object, so no other object can have that id meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.cards import Card, Suit
from referee.rules import Rules
from referee.transport.decode import (
    DECISION_TO_PB,
    RANK_TO_PB,
    STATUS_TO_PB,
    SUIT_TO_PB,
    action_to_proto,
    card_to_proto,
    enum_prefix,
)
from referee.views import (
    Action,
    CardPlayed,
    DecisionKind,
    Event,
    GameEnded,
    Passed,
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
    "CACHE_MAX",
    "DECISION_TO_PB",
    "RANK_TO_PB",
    "STATUS_TO_PB",
    "SUIT_TO_PB",
    "action_bytes",
    "card_bytes",
    "enum_prefix",
    "event_bytes",
    "rules_to_proto",
    "varint",
    "view_to_request_bytes",
]

CACHE_MAX = 1024
"""Entries of each cache at most; a full cache is emptied and refilled. The per-game
entries (completed tricks, round events, view heads) of even 8 games at once number a
few hundred; 4,096 let the referee's memory grow by ~3 MiB over the first thousand games
of a league (``make bench``, B6)."""

_UINT32_MAX = 0xFFFFFFFF

# --- rules (the enum tables and enum_prefix are referee.transport.decode's) --------


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


# --- wire format -------------------------------------------------------------------


def varint(value: int) -> bytes:
    """``value`` (0 .. 2**64 - 1) as a protobuf base-128 varint, low 7 bits first.
    Raises ValueError outside that range."""
    if not 0 <= value < 1 << 64:
        raise ValueError(f"{value!r} cannot be a varint: expected 0 .. 2**64 - 1")
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class _Memo(dict[Any, bytes]):
    """``memo[key]`` is ``build(key)``, built once per key (by value); emptied when full."""

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[Any], bytes]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, key: Any) -> bytes:
        value = self._build(key)
        if len(self) >= CACHE_MAX:
            self.clear()
        self[key] = value
        return value


class _Shared:
    """``shared(item)`` is ``build(item)``, built once per object (by identity); emptied
    when full. Each entry holds its object alive, so no other object can have its id while
    the entry exists: an entry found under ``id(item)`` is ``item``'s."""

    __slots__ = ("_build", "_entries")

    def __init__(self, build: Callable[[Any], bytes]) -> None:
        self._build = build
        self._entries: dict[int, tuple[Any, bytes]] = {}

    def __call__(self, item: Any) -> bytes:
        entry = self._entries.get(id(item))
        return self._add(item) if entry is None else entry[1]

    def _add(self, item: Any) -> bytes:
        encoded = self._build(item)
        if len(self._entries) >= CACHE_MAX:
            self._entries.clear()
        self._entries[id(item)] = (item, encoded)
        return encoded

    def join(self, items: Iterable[Any]) -> bytes:
        """The encodings of ``items`` concatenated (a repeated field). The hot path reads
        ``entries[id(item)][1]`` itself and calls this on a KeyError (one raise per miss)."""
        get = self._entries.get
        parts = []
        for item in items:
            entry = get(id(item))
            parts.append(self._add(item) if entry is None else entry[1])
        return b"".join(parts)

    def __len__(self) -> int:
        return len(self._entries)


_LENGTH = _Memo(varint)


def _uint32(value: int) -> bytes:
    if not 0 <= value <= _UINT32_MAX:
        raise ValueError(f"{value!r} is not a uint32 (0 .. {_UINT32_MAX})")
    return varint(value)


_UINT32 = _Memo(_uint32)


def _descriptor(message: Any, name: str) -> FieldDescriptor:
    field: FieldDescriptor = message.DESCRIPTOR.fields_by_name[name]
    return field


def _tag(message: Any, name: str) -> bytes:
    """The key of field ``name`` of ``message``: its number and wire type (LEN for strings,
    messages and packed scalars, else VARINT)."""
    field = _descriptor(message, name)
    length_delimited = field.type in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_STRING) or field.is_packed
    return varint(field.number << 3 | (2 if length_delimited else 0))


def _message(tag: bytes, body: bytes) -> bytes:
    """A message (or packed, or string) field: key, length, body."""
    return tag + _LENGTH[len(body)] + body


def _scalar(message: Any, name: str, to_pb: Callable[[Any], int] = int) -> _Memo:
    """Value -> encoding of a uint32 / bool / enum field (``to_pb`` gives an enum's number).
    Without presence the default 0 is omitted; with presence (``optional``, oneof) None is
    omitted and 0 is sent. Raises ValueError naming the field for a value out of range."""
    field = _descriptor(message, name)
    tag, present, where = _tag(message, name), field.has_presence, f"{message.DESCRIPTOR.name}.{name}"

    def build(value: Any) -> bytes:
        if value is None:
            return b""
        number = to_pb(value)
        if number == 0 and not present:
            return b""
        try:
            return tag + _UINT32[number]
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    return _Memo(build)


def _packed(message: Any, name: str, to_pb: Callable[[Any], int] = int) -> _Memo:
    """Tuple -> encoding of a packed repeated uint32 / enum field (omitted when empty)."""
    tag = _tag(message, name)

    def build(values: tuple[Any, ...]) -> bytes:
        payload = b"".join([_UINT32[to_pb(value)] for value in values])
        return _message(tag, payload) if payload else b""

    return _Memo(build)


def _string(message: Any, name: str) -> _Memo:
    """str -> encoding of a string field (UTF-8; omitted when empty)."""
    tag = _tag(message, name)
    return _Memo(lambda text: _message(tag, text.encode()) if text else b"")


# --- cards and actions -------------------------------------------------------------

# Serialized from the bot side's messages (one implementation): 52 cards, and actions
# by identity in _LEGAL (the engine shares its ~58 actions), so each is built once.
card_bytes = _Memo(lambda card: card_to_proto(card).SerializeToString())
"""``card_bytes[card]``: the ``Card`` message of a Card."""


def action_bytes(action: Action) -> bytes:
    """The ``Action`` message of an Action (``play`` / ``choose_trump`` / ``pass_trick``).
    Raises TypeError for anything else."""
    return action_to_proto(action).SerializeToString()


# --- tricks ------------------------------------------------------------------------

_PLAY_SEAT = _scalar(pb.TrickPlay, "seat")
_PLAY_CARD_TAG = _tag(pb.TrickPlay, "card")
_PLAY_PASSED = _scalar(pb.TrickPlay, "passed")
_LEADER = _scalar(pb.Trick, "leader")
_PLAYS_TAG = _tag(pb.Trick, "plays")
_WINNER = _scalar(pb.Trick, "winner")


def _trick_play_item(play: TrickPlay) -> bytes:
    played = _PLAY_PASSED[True] if play.card is None else _message(_PLAY_CARD_TAG, card_bytes[play.card])
    return _message(_PLAYS_TAG, _PLAY_SEAT[play.seat] + played)


_TRICK_PLAYS = _Shared(_trick_play_item)  # the engine shares its TrickPlay objects


def _trick_body(trick: Trick) -> bytes:
    return _LEADER[trick.leader] + _TRICK_PLAYS.join(trick.plays) + _WINNER[trick.winner]


# --- events ------------------------------------------------------------------------

_STARTED = (
    _tag(pb.Event, "round_started"),
    _scalar(pb.RoundStarted, "round_number"),
    _scalar(pb.RoundStarted, "dealer"),
    _scalar(pb.RoundStarted, "hand_size"),
    _packed(pb.RoundStarted, "status", STATUS_TO_PB.__getitem__),
    _tag(pb.RoundStarted, "turn_up"),
    _scalar(pb.RoundStarted, "trump_chooser"),
)
_CHOSEN = (
    _tag(pb.Event, "trump_chosen"),
    _scalar(pb.TrumpChosen, "seat"),
    _scalar(pb.TrumpChosen, "suit", SUIT_TO_PB.__getitem__),
    _scalar(pb.TrumpChosen, "no_trump"),
)
_CARD_PLAYED = (_tag(pb.Event, "card_played"), _scalar(pb.CardPlayed, "seat"), _tag(pb.CardPlayed, "card"))
_PASSED = (_tag(pb.Event, "passed"), _scalar(pb.Passed, "seat"))
_TRICK_WON = (_tag(pb.Event, "trick_won"), _scalar(pb.TrickWon, "seat"), _scalar(pb.TrickWon, "trick_number"))
_ENDED = (
    _tag(pb.Event, "round_ended"),
    _scalar(pb.RoundEnded, "round_number"),
    _packed(pb.RoundEnded, "tricks_won"),
    _packed(pb.RoundEnded, "knocked_out"),
    _packed(pb.RoundEnded, "dogs"),
    _packed(pb.RoundEnded, "forfeited"),
)
_GAME_ENDED = (_tag(pb.Event, "game_ended"), _scalar(pb.GameEnded, "winner"), _packed(pb.GameEnded, "placements"))


def event_bytes(event: Event) -> bytes:
    """The ``Event`` message of an Event (exactly one oneof field set). Raises TypeError
    for anything else."""
    match event:
        case CardPlayed():
            tag, seat, card = _CARD_PLAYED
            return _message(tag, seat[event.seat] + _message(card, card_bytes[event.card]))
        case Passed():
            tag, seat = _PASSED
            return _message(tag, seat[event.seat])
        case TrickWon():
            tag, seat, number = _TRICK_WON
            return _message(tag, seat[event.seat] + number[event.trick_number])
        case RoundStarted():
            tag, number, dealer, size, status, turn_up, chooser = _STARTED
            body = number[event.round_number] + dealer[event.dealer] + size[event.hand_size] + status[event.status]
            if event.turn_up is not None:
                body += _message(turn_up, card_bytes[event.turn_up])
            return _message(tag, body + chooser[event.trump_chooser])
        case TrumpChosen():
            tag, seat, suit, no_trump = _CHOSEN
            return _message(tag, seat[event.seat] + (no_trump[True] if event.suit is None else suit[event.suit]))
        case RoundEnded():
            tag, number, won, out, dogs, forfeited = _ENDED
            body = number[event.round_number] + won[event.tricks_won] + out[event.knocked_out] + dogs[event.dogs]
            return _message(tag, body + forfeited[event.forfeited])
        case GameEnded():
            tag, winner, placements = _GAME_ENDED
            return _message(tag, winner[event.winner] + placements[event.placements])
    raise TypeError(f"not an event: {event!r}")


# --- the request -------------------------------------------------------------------

_VIEW_GAME_ID = _string(pb.SeatView, "game_id")
_SEAT = _scalar(pb.SeatView, "seat")
_NUM_SEATS = _scalar(pb.SeatView, "num_seats")
_RULES_TAG = _tag(pb.SeatView, "rules")
_RULES = _Memo(lambda rules: _message(_RULES_TAG, rules_to_proto(rules).SerializeToString()))
_STATUS = _packed(pb.SeatView, "status", STATUS_TO_PB.__getitem__)
_DEALER = _scalar(pb.SeatView, "dealer")
_ROUND_NUMBER = _scalar(pb.SeatView, "round_number")
_CARDS_DEALT = _scalar(pb.SeatView, "cards_dealt")
_TRUMP_STATE = _scalar(pb.SeatView, "trump_state")
_TRUMP = _scalar(pb.SeatView, "trump", SUIT_TO_PB.__getitem__)
_NO_TRUMP_FIELDS = _TRUMP_STATE[pb.TRUMP_STATE_NO_TRUMP]
_TRUMP_FIELDS: dict[Suit | None, bytes] = {
    None: _TRUMP_STATE[pb.TRUMP_STATE_UNDECIDED],
    **{suit: _TRUMP_STATE[pb.TRUMP_STATE_SUIT] + _TRUMP[suit] for suit in Suit},
}
_TURN_UP_TAG = _tag(pb.SeatView, "turn_up")
_TURN_UP = _Memo(lambda card: b"" if card is None else _message(_TURN_UP_TAG, card_bytes[card]))
_TRUMP_CHOOSER = _scalar(pb.SeatView, "trump_chooser")
_HAND_TAG = _tag(pb.SeatView, "hand")
_HAND = _Memo(lambda card: _message(_HAND_TAG, card_bytes[card]))
_CURRENT_TRICK_TAG = _tag(pb.SeatView, "current_trick")
_COMPLETED_TAG = _tag(pb.SeatView, "completed_tricks")
_COMPLETED_TRICK = _Shared(lambda trick: _message(_COMPLETED_TAG, _trick_body(trick)))  # the engine shares each completed Trick
_TRICKS_WON = _packed(pb.SeatView, "tricks_won")
_DOG_LIFE_USED = _scalar(pb.SeatView, "dog_life_used")

_GAME_ID = _string(pb.DecisionRequest, "game_id")
_DECISION_NUMBER = _scalar(pb.DecisionRequest, "decision_number")
_VIEW_TAG = _tag(pb.DecisionRequest, "view")
_EVENTS_TAG = _tag(pb.DecisionRequest, "events")
_EVENTS = _Shared(lambda event: _message(_EVENTS_TAG, event_bytes(event)))  # each event goes to every seat


def _whole_ms(ms: float) -> int:
    """A time in whole ms; negative times are sent as 0."""
    return max(0, int(ms))


_TIME_LEFT = _scalar(pb.DecisionRequest, "time_left_ms", _whole_ms)
_BANK_LEFT = _scalar(pb.DecisionRequest, "bank_left_ms", _whole_ms)
_DECISION = _scalar(pb.DecisionRequest, "decision", DECISION_TO_PB.__getitem__)
_PLAY = DecisionKind.PLAY
_PLAY_CARD = _DECISION[_PLAY]
_LEGAL_TAG = _tag(pb.DecisionRequest, "legal")
_LEGAL = _Shared(lambda action: _message(_LEGAL_TAG, action_bytes(action)))  # the engine shares its actions

_Head = tuple[str, int, int, int, int, int, int, int, Suit | None, bool, Card | None, int | None]
_HEADS: dict[_Head, tuple[Rules, tuple[SeatStatus, ...], bytes]] = {}
"""SeatView fields ``game_id`` .. ``trump_chooser`` (1-12), the same in all of a seat's
views of a round until trump is named. Keyed by value, with the ids of the rules and the
status tuple (both shared by the engine): an entry holds both alive, so the ids are theirs."""


def _head(view: SeatView, key: _Head) -> bytes:
    head = b"".join(
        (
            _VIEW_GAME_ID[view.game_id],
            _SEAT[view.seat],
            _NUM_SEATS[view.num_seats],
            _RULES[view.rules],
            _STATUS[view.status],
            _DEALER[view.dealer],
            _ROUND_NUMBER[view.round_number],
            _CARDS_DEALT[view.hand_size],
            _NO_TRUMP_FIELDS if view.no_trump else _TRUMP_FIELDS[view.trump],
            _TURN_UP[view.turn_up],
            _TRUMP_CHOOSER[view.trump_chooser],
        )
    )
    if len(_HEADS) >= CACHE_MAX:
        _HEADS.clear()
    _HEADS[key] = (view.rules, view.status, head)
    return head


# The hot path below reads the identity caches' entries directly (a method call costs as
# much as a lookup): ``entries[id(item)][1]``, falling back to the cache on a miss.
_COMPLETED_TRICK_ENTRIES = _COMPLETED_TRICK._entries
_TRICK_PLAY_ENTRIES = _TRICK_PLAYS._entries
_EVENT_ENTRIES = _EVENTS._entries
_LEGAL_ENTRIES = _LEGAL._entries


def view_to_request_bytes(
    view: SeatView,
    events: Sequence[Event],
    decision_number: int,
    time_left_ms: int,
    bank_left_ms: int,
) -> bytes:
    """The serialized ``DecisionRequest`` sent to seat ``view.seat`` (bytes, protobuf wire
    format; equal to ``SerializeToString()`` of the message parsed from them).

    ``events``: the public events since this seat's previous request, oldest first.
    ``decision_number``: game-wide, 0-based. ``time_left_ms``: time for this decision in
    ms (0 = no limit); ``bank_left_ms``: time bank left in ms (0 = none); negative times
    are sent as 0. The seat's ``decision`` and ``legal`` actions go to the request's top
    level. Everything comes from ``view`` and ``events``, which hold no other seat's cards
    (DESIGN.md §3). Raises ValueError naming the field for a number that is not a uint32.
    """
    game_id = view.game_id
    key = (
        game_id,
        view.seat,
        view.num_seats,
        id(view.rules),
        id(view.status),
        view.dealer,
        view.round_number,
        view.hand_size,
        view.trump,
        view.no_trump,
        view.turn_up,
        view.trump_chooser,
    )
    try:
        head = _HEADS[key][2]
    except KeyError:
        head = _head(view, key)
    trick = view.current_trick
    if trick is None:
        current = b""
    else:  # a new Trick in every view, of shared TrickPlays; sent even with no plays yet
        plays = trick.plays
        try:
            played = b"".join([_TRICK_PLAY_ENTRIES[id(play)][1] for play in plays])
        except KeyError:
            played = _TRICK_PLAYS.join(plays)
        body = _LEADER[trick.leader] + played + _WINNER[trick.winner]
        current = _CURRENT_TRICK_TAG + _LENGTH[len(body)] + body
    completed = view.completed_tricks
    try:
        done = b"".join([_COMPLETED_TRICK_ENTRIES[id(done_trick)][1] for done_trick in completed])
    except KeyError:
        done = _COMPLETED_TRICK.join(completed)
    seat_view = b"".join(
        (
            head,
            b"".join([_HAND[card] for card in view.hand]),
            current,
            done,
            _TRICKS_WON[view.tricks_won],
            _DOG_LIFE_USED[view.dog_life_used],
        )
    )
    try:
        sent = b"".join([_EVENT_ENTRIES[id(event)][1] for event in events])
    except KeyError:
        sent = _EVENTS.join(events)
    legal = view.legal
    try:
        actions = b"".join([_LEGAL_ENTRIES[id(action)][1] for action in legal])
    except KeyError:
        actions = _LEGAL.join(legal)
    decision = view.decision
    return b"".join(
        (
            _GAME_ID[game_id],
            _DECISION_NUMBER[decision_number],
            _VIEW_TAG,
            _LENGTH[len(seat_view)],
            seat_view,
            sent,
            _TIME_LEFT[time_left_ms],
            _BANK_LEFT[bank_left_ms],
            _PLAY_CARD if decision is _PLAY else _DECISION[decision],  # an Enum hashes slowly
            actions,
        )
    )
