"""The codec's shared, build-once messages (rules, cards, completed tricks, legal actions):
requests are byte-identical to ones built field by field, and changing a request never
changes a later one."""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game import Game
from referee.rules import Rules
from referee.transport import codec
from referee.views import Event, SeatView, Trick


def reference_trick(trick: Trick) -> pb.Trick:
    msg = pb.Trick(leader=trick.leader)
    for play in trick.plays:
        if play.card is None:
            msg.plays.add(seat=play.seat, passed=True)
        else:
            msg.plays.add(seat=play.seat, card=codec.card_to_proto(play.card))
    if trick.winner is not None:
        msg.winner = trick.winner
    return msg


def reference_request(view: SeatView, events: Sequence[Event], number: int, left: int, bank: int) -> bytes:
    """The request built afresh from the public per-message functions, nothing shared."""
    seat_view = pb.SeatView(
        game_id=view.game_id,
        seat=view.seat,
        num_seats=view.num_seats,
        rules=codec.rules_to_proto(view.rules),
        status=[codec._STATUS_TO_PB[status] for status in view.status],
        dealer=view.dealer,
        round_number=view.round_number,
        cards_dealt=view.hand_size,
        hand=[codec.card_to_proto(card) for card in view.hand],
        completed_tricks=[reference_trick(trick) for trick in view.completed_tricks],
        tricks_won=list(view.tricks_won),
        dog_life_used=view.dog_life_used,
    )
    if view.no_trump:
        seat_view.trump_state = pb.TRUMP_STATE_NO_TRUMP
    elif view.trump is not None:
        seat_view.trump_state = pb.TRUMP_STATE_SUIT
        seat_view.trump = codec._SUIT_TO_PB[view.trump]
    else:
        seat_view.trump_state = pb.TRUMP_STATE_UNDECIDED
    if view.turn_up is not None:
        seat_view.turn_up.CopyFrom(codec.card_to_proto(view.turn_up))
    if view.trump_chooser is not None:
        seat_view.trump_chooser = view.trump_chooser
    if view.current_trick is not None:
        seat_view.current_trick.SetInParent()
        seat_view.current_trick.CopyFrom(reference_trick(view.current_trick))
    request = pb.DecisionRequest(
        game_id=view.game_id,
        decision_number=number,
        view=seat_view,
        events=[codec._event_to_proto(event) for event in events],
        time_left_ms=left,
        bank_left_ms=bank,
        decision=codec._DECISION_TO_PB[view.decision] if view.decision is not None else pb.DECISION_KIND_UNSPECIFIED,
        legal=[codec.action_to_proto(action) for action in view.legal],
    )
    return request.SerializeToString()


def play_games(count: int) -> list[tuple[SeatView, list[Event], int]]:
    asked = []
    for seed in range(count):
        rules = Rules(allow_no_trump=seed % 2 == 0, dog_life=("round1", "any_round", "off")[seed % 3], start_hand_size=(7, 4, 2)[seed % 3])
        players = 2 + seed % 6
        game = Game(players, rules, seed, game_id=f"g{seed}")
        sent = [0] * players
        choose = random.Random(seed).choice
        number = 0
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            events = game.events[sent[seat] :]
            sent[seat] = len(game.events)
            asked.append((view, list(events), number))
            game.apply(seat, choose(view.legal))
            number += 1
    return asked


def test_requests_are_byte_identical_to_ones_built_afresh() -> None:
    for view, events, number in play_games(24):
        built = codec.view_to_request(view, events, number, 250, number % 7).SerializeToString()
        assert built == reference_request(view, events, number, 250, number % 7)


def test_changing_a_request_changes_no_later_request() -> None:
    asked = play_games(3)
    view, events, number = next(item for item in asked if item[0].completed_tricks and item[0].turn_up is not None)
    first = codec.view_to_request(view, events, number, 250, 0)
    expected = first.SerializeToString()
    first.view.rules.start_hand_size = 3
    first.view.hand[0].rank = pb.TWO
    first.view.completed_tricks[0].plays[0].seat = 6
    first.view.turn_up.suit = pb.CLUBS
    first.legal[0].play.rank = pb.THREE
    if first.events:
        first.events[0].Clear()
    assert codec.view_to_request(view, events, number, 250, 0).SerializeToString() == expected


def test_the_completed_trick_cache_stays_bounded() -> None:
    for view, _, _ in play_games(40):
        codec.view_to_request(view, [], 0, 0, 0)
        assert len(codec._COMPLETED) <= codec._SHARED_MAX and len(codec._EVENTS) <= codec._SHARED_MAX
