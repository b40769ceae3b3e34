"""What goes on the wire: ``codec.view_to_request`` serializes to exactly the bytes of
the request as bot.proto documents it, built here field by field with the protobuf API,
for every decision of real games (all rule variants, 2-7 seats, forfeits) and for
arbitrary views; the request carries no card the seat may not know (docs/design.md §3)."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from typing import Any, get_args, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game.cards import Card
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.transport.codec import request_json, request_to_view, view_to_request
from referee.game.views import (
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
    TrickWon,
    TrumpChosen,
)
from tests.transport.test_codec import events as event_strategy
from tests.transport.test_codec import views as view_strategy

# --- the reference: the protobuf library's own API, field by field ------------------


def ref_card(card: Card) -> pb.Card:
    return pb.Card(rank=pb.Rank.Value(card.rank.name), suit=pb.Suit.Value(card.suit.name))


def ref_trick(trick: Trick) -> pb.Trick:
    msg = pb.Trick(leader=trick.leader)
    for play in trick.plays:
        if play.face_down:
            added = msg.plays.add(seat=play.seat, face_down=True)
            if play.card is not None:
                added.card.CopyFrom(ref_card(play.card))
        elif play.card is None:
            msg.plays.add(seat=play.seat, passed=True)
        else:
            msg.plays.add(seat=play.seat, card=ref_card(play.card))
    if trick.winner is not None:
        msg.winner = trick.winner
    return msg


def ref_rules(rules: Rules) -> pb.Rules:
    msg = pb.Rules()
    for field in fields(Rules):
        value = getattr(rules, field.name)
        enum_type = pb.Rules.DESCRIPTOR.fields_by_name[field.name].enum_type
        if enum_type is not None:
            prefix = enum_type.values_by_number[0].name.removesuffix("UNSPECIFIED")
            value = enum_type.values_by_name[prefix + value.upper()].number
        setattr(msg, field.name, value)
    return msg


def ref_status(status: Any) -> pb.SeatStatus.ValueType:
    return pb.SeatStatus.Value("SEAT_STATUS_" + status.name)


def ref_event(event: Event) -> pb.Event:
    match event:
        case RoundStarted():
            started = pb.RoundStarted(
                round_number=event.round_number, dealer=event.dealer, hand_size=event.hand_size, status=[ref_status(s) for s in event.status]
            )
            if event.turn_up is not None:
                started.turn_up.CopyFrom(ref_card(event.turn_up))
            if event.trump_chooser is not None:
                started.trump_chooser = event.trump_chooser
            return pb.Event(round_started=started)
        case TrumpChosen():
            chosen = pb.TrumpChosen(no_trump=True) if event.suit is None else pb.TrumpChosen(suit=pb.Suit.Value(event.suit.name))
            if event.seat is not None:
                chosen.seat = event.seat
            return pb.Event(trump_chosen=chosen)
        case CardPlayed():
            if event.card is None:
                return pb.Event(card_played=pb.CardPlayed(seat=event.seat, face_down=event.face_down))
            return pb.Event(card_played=pb.CardPlayed(seat=event.seat, card=ref_card(event.card), face_down=event.face_down))
        case CardRevealed():
            return pb.Event(card_revealed=pb.CardRevealed(seat=event.seat, card=ref_card(event.card)))
        case Passed():
            return pb.Event(passed=pb.Passed(seat=event.seat))
        case TrickWon():
            return pb.Event(trick_won=pb.TrickWon(seat=event.seat, trick_number=event.trick_number))
        case RoundEnded():
            ended = pb.RoundEnded(round_number=event.round_number, tricks_won=event.tricks_won, knocked_out=event.knocked_out, dogs=event.dogs, forfeited=event.forfeited)
            return pb.Event(round_ended=ended)
        case GameEnded():
            over = pb.GameEnded(placements=event.placements)
            if event.winner is not None:
                over.winner = event.winner
            return pb.Event(game_ended=over)
    raise TypeError(event)


def ref_action(action: Any) -> pb.Action:
    name = type(action).__name__
    if name == "Play":
        return pb.Action(play=ref_card(action.card))
    if name == "Pass":
        return pb.Action(pass_trick=pb.Pass())
    if action.suit is None:
        return pb.Action(choose_trump=pb.TrumpChoice(no_trump=True))
    return pb.Action(choose_trump=pb.TrumpChoice(suit=pb.Suit.Value(action.suit.name)))


def reference_request(view: SeatView, events: Sequence[Event], number: int, left: int, bank: int, last: int | None = None) -> pb.DecisionRequest:
    """The request as documented in bot.proto, built afresh with the protobuf API."""
    seat_view = pb.SeatView(
        game_id=view.game_id,
        seat=view.seat,
        num_seats=view.num_seats,
        rules=ref_rules(view.rules),
        status=[ref_status(status) for status in view.status],
        dealer=view.dealer,
        round_number=view.round_number,
        cards_dealt=view.hand_size,
        hand=[ref_card(card) for card in view.hand],
        completed_tricks=[ref_trick(trick) for trick in view.completed_tricks],
        tricks_won=list(view.tricks_won),
        dog_life_used=view.dog_life_used,
        to_play=list(view.to_play),
    )
    if view.current_trick is not None:
        seat_view.trick_number = len(view.completed_tricks) + 1  # 0 while trump is chosen
    if view.no_trump:
        seat_view.trump_state = pb.TRUMP_STATE_NO_TRUMP
    elif view.trump is not None:
        seat_view.trump_state = pb.TRUMP_STATE_SUIT
        seat_view.trump = pb.Suit.Value(view.trump.name)
    else:
        seat_view.trump_state = pb.TRUMP_STATE_UNDECIDED
    if view.turn_up is not None:
        seat_view.turn_up.CopyFrom(ref_card(view.turn_up))
    if view.trump_chooser is not None:
        seat_view.trump_chooser = view.trump_chooser
    if view.current_trick is not None:
        seat_view.current_trick.SetInParent()
        seat_view.current_trick.CopyFrom(ref_trick(view.current_trick))
    decisions = {None: pb.DECISION_KIND_UNSPECIFIED, DecisionKind.PLAY: pb.PLAY_CARD, DecisionKind.CHOOSE_TRUMP: pb.CHOOSE_TRUMP}
    request = pb.DecisionRequest(
        game_id=view.game_id,
        decision_number=number,
        view=seat_view,
        events=[ref_event(event) for event in events],
        time_left_ms=max(0, left),
        bank_left_ms=max(0, bank),
        decision=decisions[view.decision],
        legal=[ref_action(action) for action in view.legal],
    )
    if last is not None:
        request.last_decision_ms = last
    return request


# --- real games --------------------------------------------------------------------


def _variants() -> list[Rules]:
    """Every combination of the enumerated rule variants (rules.md §2)."""
    hints = get_type_hints(Rules)
    choices = {f.name: (False, True) if hints[f.name] is bool else get_args(hints[f.name]) for f in fields(Rules) if f.name != "start_hand_size"}
    return [Rules(**dict(zip(choices, combo))) for combo in itertools.product(*choices.values())]


VARIANTS = _variants()


def asked_in_game(players: int, rules: Rules, seed: int) -> Iterator[tuple[SeatView, list[Event], int]]:
    """Every request of a seeded game (random legal moves, now and then a forfeit), with
    the public events since the seat's previous request."""
    game = Game(players, rules, seed, game_id=f"wire-{seed}")
    rng = random.Random(seed)
    sent = [0] * players
    number = 0
    while not game.over:
        seat = game.to_act
        assert seat is not None
        if rng.random() < 0.01:
            game.forfeit(seat)
        view = game.view(seat)
        events = game.events[sent[seat] :]
        sent[seat] = len(game.events)
        yield view, events, number
        game.apply(seat, rng.choice(view.legal))
        number += 1


GAMES = [
    (2 + index % 6, replace(rules, start_hand_size=random.Random(index).randint(1, min(7, 51 // (2 + index % 6)))), index)
    for index, rules in enumerate(VARIANTS)
]


@pytest.mark.parametrize(("players", "rules", "seed"), GAMES, ids=[f"{p}p-{r.summary()}" for p, r, _ in GAMES])
def test_every_request_of_a_game_is_what_protobuf_serializes(players: int, rules: Rules, seed: int) -> None:
    for view, events, number in asked_in_game(players, rules, seed):
        last = None if number % 5 == 0 else number * 7
        request = view_to_request(view, events, number, 250, number % 3, last)
        expected = reference_request(view, events, number, 250, number % 3, last)
        assert request.SerializeToString() == expected.SerializeToString()
        assert request == expected


def test_the_games_cover_every_seat_count_and_variant_value() -> None:
    assert {players for players, _, _ in GAMES} == set(range(2, 8))
    for field in fields(Rules):
        values = {getattr(rules, field.name) for _, rules, _ in GAMES}
        assert len(values) > 1, field.name


def _cards_in(msg: Any) -> Iterator[tuple[int, int]]:
    """(rank, suit) of every Card message anywhere inside ``msg``."""
    for descriptor, value in msg.ListFields():
        if descriptor.message_type is None:
            continue
        items = value if descriptor.is_repeated else [value]
        for item in items:
            if descriptor.message_type.name == "Card":
                yield (item.rank, item.suit)
            else:
                yield from _cards_in(item)


@pytest.mark.parametrize("dog_play", ["choose_trick", "first_trick"])
@pytest.mark.parametrize("players", range(2, 8))
def test_a_request_holds_only_cards_the_seat_may_know(players: int, dog_play: str) -> None:
    """docs/design.md §3: own hand, the turn-up and cards played face up to tricks or turned
    up (docs/rules.md W24); nothing else."""
    rules = Rules(start_hand_size=min(7, 51 // players), dog_play=dog_play)  # type: ignore[arg-type]
    played: set[tuple[int, int]] = set()
    for view, events, number in asked_in_game(players, rules, 100 + players):
        request = pb.DecisionRequest.FromString(view_to_request(view, events, number, 0, 0).SerializeToString())
        played |= {(e.card_played.card.rank, e.card_played.card.suit) for e in request.events if e.card_played.HasField("card")}
        played |= {(e.card_revealed.card.rank, e.card_revealed.card.suit) for e in request.events if e.HasField("card_revealed")}
        known = played | {(c.rank, c.suit) for c in request.view.hand}
        if request.view.HasField("turn_up"):
            known.add((request.view.turn_up.rank, request.view.turn_up.suit))
        for event in request.events:
            if event.HasField("round_started") and event.round_started.HasField("turn_up"):
                known.add((event.round_started.turn_up.rank, event.round_started.turn_up.suit))
        assert set(_cards_in(request)) <= known


# --- arbitrary views ---------------------------------------------------------------


@given(view_strategy(), st.lists(event_strategy, max_size=10), st.integers(0, 2**32 - 1), st.integers(-5, 2**32 - 1), st.integers(-5, 2**32 - 1))
@settings(max_examples=300, deadline=None)
def test_any_view_encodes_as_protobuf_does(view: SeatView, events: list[Event], number: int, left: int, bank: int) -> None:
    wire = view_to_request(view, events, number, left, bank).SerializeToString()
    expected = reference_request(view, events, number, left, bank)
    assert wire == expected.SerializeToString()
    assert request_to_view(pb.DecisionRequest.FromString(wire)) == (view, events)


def test_request_json_takes_the_bytes_or_the_message() -> None:
    view, events, number = next(item for item in asked_in_game(4, Rules(), 3) if item[0].completed_tricks and item[1])
    wire = view_to_request(view, events, number, 1000, 40).SerializeToString()
    text = request_json(wire)
    assert text == request_json(view_to_request(view, events, number, 1000, 40))
    assert json.loads(text)["bank_left_ms"] == 40


# --- bad numbers -------------------------------------------------------------------


def test_a_number_that_is_not_a_uint32_is_refused() -> None:
    view, events, _ = next(asked_in_game(3, Rules(), 1))
    with pytest.raises(ValueError):
        view_to_request(view, events, 2**32, 0, 0)
    with pytest.raises(ValueError):
        view_to_request(replace(view, seat=-1), events, 0, 0, 0)


def test_negative_times_are_sent_as_zero() -> None:
    view, events, _ = next(asked_in_game(3, Rules(), 1))
    request = view_to_request(view, events, 0, -5, -1)
    assert (request.time_left_ms, request.bank_left_ms) == (0, 0)


def test_changing_a_request_changes_no_later_one() -> None:
    """The codec keeps the encodings of the parts it sees again (by object identity): a
    request the caller changes must not leak into the next request of the same objects."""
    view, events, number = next(item for item in asked_in_game(4, Rules(), 3) if item[0].current_trick and item[0].completed_tricks and item[1])
    first = view_to_request(view, events, number, 1000, 40)
    expected = first.SerializeToString()
    first.view.hand[0].rank = pb.ACE if first.view.hand[0].rank != pb.ACE else pb.TWO
    first.view.current_trick.plays.add(seat=3, passed=True)
    first.view.completed_tricks[0].leader += 1
    first.events.add(passed=pb.Passed(seat=1))
    first.legal.add(pass_trick=pb.Pass())
    assert view_to_request(view, events, number, 1000, 40).SerializeToString() == expected
