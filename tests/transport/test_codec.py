"""Codec: SeatView / events / actions <-> protobuf (docs/design.md §3, §4), and malformed replies."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from typing import Any, get_args, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game.cards import CARDS, Suit
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.transport import MalformedReply, codec, decode
from referee.transport.codec import (
    action_to_proto,
    message_json,
    proto_to_action,
    request_json,
    request_to_view,
    rules_to_proto,
    view_to_request,
)
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
    fallback_action,
)
from tests.transport.helpers import hand_view

# --- strategies --------------------------------------------------------------------

seats = st.integers(0, 6)
cards = st.sampled_from(CARDS)
suits = st.sampled_from(list(Suit))
small = st.integers(0, 7)
statuses = st.lists(st.sampled_from(list(SeatStatus)), max_size=7).map(tuple)
seat_lists = st.lists(seats, max_size=7).map(tuple)


def _rules_strategy() -> st.SearchStrategy[Rules]:
    hints = get_type_hints(Rules)
    values: dict[str, st.SearchStrategy[Any]] = {}
    for field in fields(Rules):
        hint = hints[field.name]
        if hint is bool:
            values[field.name] = st.booleans()
        elif hint is int:
            values[field.name] = st.integers(1, 7)
        else:
            values[field.name] = st.sampled_from(get_args(hint))
    return st.builds(Rules, **values)


rules_st = _rules_strategy()
actions: st.SearchStrategy[Action] = st.one_of(
    st.builds(Play, cards), st.builds(ChooseTrump, st.none() | suits), st.just(Pass())
)
tricks = st.builds(
    Trick,
    leader=seats,
    plays=st.lists(st.builds(TrickPlay, seat=seats, card=st.none() | cards, face_down=st.booleans()), max_size=7).map(tuple),
    winner=st.none() | seats,
)
events: st.SearchStrategy[Event] = st.one_of(
    st.builds(RoundStarted, round_number=small, dealer=seats, hand_size=small, status=statuses, turn_up=st.none() | cards, trump_chooser=st.none() | seats),
    st.builds(TrumpChosen, seat=st.none() | seats, suit=st.none() | suits),
    st.builds(CardPlayed, seat=seats, card=cards),
    st.builds(CardPlayed, seat=seats, card=st.none(), face_down=st.just(True)),
    st.builds(CardRevealed, seat=seats, card=cards),
    st.builds(Passed, seat=seats),
    st.builds(TrickWon, seat=seats, trick_number=small),
    st.builds(RoundEnded, round_number=small, tricks_won=st.lists(small, max_size=7).map(tuple), knocked_out=seat_lists, dogs=seat_lists, forfeited=seat_lists),
    st.builds(GameEnded, winner=st.none() | seats, placements=st.lists(st.integers(1, 7), max_size=7).map(tuple)),
)


@st.composite
def views(draw: st.DrawFn) -> SeatView:
    trump, no_trump = draw(st.one_of(st.tuples(suits, st.just(False)), st.just((None, True)), st.just((None, False))))
    return SeatView(
        game_id=draw(st.text(max_size=12)),
        seat=draw(seats),
        num_seats=draw(st.integers(2, 7)),
        rules=draw(rules_st),
        status=draw(statuses),
        dealer=draw(seats),
        round_number=draw(st.integers(1, 7)),
        hand_size=draw(small),
        trump=trump,
        no_trump=no_trump,
        turn_up=draw(st.none() | cards),
        trump_chooser=draw(st.none() | seats),
        hand=tuple(draw(st.lists(cards, max_size=7, unique=True))),
        current_trick=draw(st.none() | tricks),
        completed_tricks=tuple(draw(st.lists(tricks, max_size=3))),
        tricks_won=tuple(draw(st.lists(small, max_size=7))),
        dog_life_used=draw(st.booleans()),
        decision=draw(st.none() | st.sampled_from(list(DecisionKind))),
        legal=tuple(draw(st.lists(actions, max_size=8))),
        to_play=draw(seat_lists),
    )


# --- round trips -------------------------------------------------------------------


@given(views(), st.lists(events, max_size=10), st.integers(0, 500), st.integers(0, 10**6), st.integers(0, 10**6))
@settings(max_examples=200, deadline=None)
def test_view_and_events_survive_the_wire(view: SeatView, evs: list[Event], number: int, left: int, bank: int) -> None:
    request = view_to_request(view, evs, number, left, bank)
    wire = pb.DecisionRequest.FromString(request.SerializeToString())
    assert request_to_view(wire) == (view, evs)
    assert (wire.game_id, wire.decision_number, wire.time_left_ms, wire.bank_left_ms) == (view.game_id, number, left, bank)
    assert request_json(wire) == request_json(request)
    json.loads(request_json(wire))


@given(actions)
def test_action_round_trip(action: Action) -> None:
    kind = DecisionKind.CHOOSE_TRUMP if isinstance(action, ChooseTrump) else DecisionKind.PLAY
    wire = pb.Action.FromString(action_to_proto(action).SerializeToString())
    assert proto_to_action(wire, hand_view(kind)) == action


@given(rules_st)
def test_every_rule_variant_has_a_proto_value(rules: Rules) -> None:
    msg = rules_to_proto(rules)
    for field in pb.Rules.DESCRIPTOR.fields:
        if field.enum_type is not None:
            assert getattr(msg, field.name) != 0, field.name


@given(st.integers(0, 10**6), st.integers(2, 7), st.booleans(), st.sampled_from(["round1", "any_round", "off"]))
@settings(max_examples=15, deadline=None)
def test_every_view_of_a_real_game_survives_the_wire(seed: int, players: int, no_trump: bool, dog_life: str) -> None:
    rules = Rules(allow_no_trump=no_trump, dog_life=dog_life, start_hand_size=min(7, 51 // players))  # type: ignore[arg-type]
    game = Game(num_seats=players, rules=rules, seed=seed, game_id=f"g{seed}")
    sent = [0] * players
    number = 0
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        evs = game.events[sent[seat] :]
        sent[seat] = len(game.events)
        request = pb.DecisionRequest.FromString(view_to_request(view, evs, number, 100, 0).SerializeToString())
        assert request_to_view(request) == (view, evs)
        game.apply(seat, fallback_action(view))
        number += 1


def test_time_fields_are_never_negative() -> None:
    request = view_to_request(hand_view(), [], 0, -5, -1)
    assert (request.time_left_ms, request.bank_left_ms) == (0, 0)


def test_request_json_is_compact_and_shows_default_fields() -> None:
    text = request_json(view_to_request(hand_view(), [], 0, 250, 0))
    assert " " not in text.replace("g1", "")
    data = json.loads(text)
    assert data["decision"] == "PLAY_CARD"
    assert data["bank_left_ms"] == 0  # a default value is still shown
    assert data["legal"] == [{"play": {"rank": "KING", "suit": "CLUBS"}}]


# --- malformed replies -------------------------------------------------------------

PLAY, TRUMP = DecisionKind.PLAY, DecisionKind.CHOOSE_TRUMP
MALFORMED = [
    ("empty", pb.Action(), PLAY, "no action set"),
    ("empty for trump", pb.Action(), TRUMP, "no action set"),
    ("rank unspecified", pb.Action(play=pb.Card(suit=pb.SPADES)), PLAY, "RANK_UNSPECIFIED"),
    ("rank unknown", pb.Action(play=pb.Card(rank=99, suit=pb.SPADES)), PLAY, "99"),  # type: ignore[arg-type]
    ("suit unspecified", pb.Action(play=pb.Card(rank=pb.ACE)), PLAY, "SUIT_UNSPECIFIED"),
    ("suit unknown", pb.Action(play=pb.Card(rank=pb.ACE, suit=9)), PLAY, "9"),  # type: ignore[arg-type]
    ("trump suit unspecified", pb.Action(choose_trump=pb.TrumpChoice(suit=pb.SUIT_UNSPECIFIED)), TRUMP, "SUIT_UNSPECIFIED"),
    ("trump choice empty", pb.Action(choose_trump=pb.TrumpChoice()), TRUMP, "neither suit nor no_trump"),
    ("no_trump false", pb.Action(choose_trump=pb.TrumpChoice(no_trump=False)), TRUMP, "no_trump is false"),
    ("card when trump asked", pb.Action(play=pb.Card(rank=pb.ACE, suit=pb.SPADES)), TRUMP, "CHOOSE_TRUMP"),
    ("pass when trump asked", pb.Action(pass_trick=pb.Pass()), TRUMP, "CHOOSE_TRUMP"),
    ("trump when card asked", pb.Action(choose_trump=pb.TrumpChoice(suit=pb.HEARTS)), PLAY, "PLAY_CARD"),
]


@pytest.mark.parametrize(("name", "msg", "kind", "phrase"), MALFORMED, ids=[case[0] for case in MALFORMED])
def test_malformed_replies_are_refused_with_a_reason(name: str, msg: Any, kind: DecisionKind, phrase: str) -> None:
    wire = pb.Action.FromString(msg.SerializeToString())
    with pytest.raises(MalformedReply, match=phrase):
        proto_to_action(wire, hand_view(kind))


def test_legality_is_not_the_codecs_business() -> None:
    """A card not in hand and a pass by a non-dog decode fine; the match calls them illegal."""
    view = hand_view(PLAY)
    assert proto_to_action(pb.Action(play=pb.Card(rank=pb.TWO, suit=pb.CLUBS)), view) == Play(CARDS[39])
    assert proto_to_action(pb.Action(pass_trick=pb.Pass()), view) == Pass()
    assert proto_to_action(pb.Action(choose_trump=pb.TrumpChoice(no_trump=True)), hand_view(TRUMP)) == ChooseTrump(None)


def test_message_json_of_an_empty_reply() -> None:
    assert message_json(pb.Action()) == "{}"


# --- hidden information by construction (docs/design.md §3) -----------------------------

CARD_FIELDS_ALLOWED = {
    "Action.play",  # the bot's own answer
    "CardPlayed.card",  # public: a card played to a trick (unset while face down, docs/rules.md W24)
    "CardRevealed.card",  # public: a face-down card turned up as its trick completes
    "TrickPlay.card",  # public
    "RoundStarted.turn_up",  # public (R7)
    "SeatView.turn_up",  # public (R7)
    "SeatView.hand",  # the seat's own hand
}


def test_no_message_has_a_field_that_could_carry_hidden_cards() -> None:
    """Every Card-typed field is reviewed: a new one (say, other seats' hands) fails here."""
    found = set()
    for message in pb.DESCRIPTOR.message_types_by_name.values():
        for field in message.fields:
            if field.message_type is not None and field.message_type.name == "Card":
                found.add(f"{message.name}.{field.name}")
    assert found == CARD_FIELDS_ALLOWED


# --- the bot's side imports little (referee.transport.decode) ----------------------

REFEREE_ONLY = ("json", "google.protobuf.json_format", "referee.transport.codec")


def test_a_bots_decisions_load_no_json_and_no_request_encoder() -> None:
    """A Python bot loads ``referee.botkit.decide`` before its first decision: it must not
    pull in the referee's JSON evidence (json, json_format) or its request encoder."""
    probe = f"import sys, referee.botkit.decide; print([m for m in {REFEREE_ONLY!r} if m in sys.modules])"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.parametrize("name", ["request_to_view", "action_to_proto", "card_to_proto", "rules_from_proto"])
def test_codec_re_exports_the_bot_side_instead_of_copying_it(name: str) -> None:
    assert getattr(codec, name) is getattr(decode, name)


@pytest.mark.parametrize("thing", ["AS", None, CARDS[0]])
def test_action_to_proto_refuses_what_is_not_an_action(thing: object) -> None:
    with pytest.raises(TypeError, match="not an action"):
        action_to_proto(thing)  # type: ignore[arg-type]
