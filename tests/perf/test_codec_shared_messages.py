"""The wire encoder's build-once caches (rules, status, cards, trick plays, completed
tricks, events, legal actions): a request built with warm caches is byte-identical to one
built with empty caches, a cache is never fooled by a reused id, changing a returned
message changes no later request, and every cache stays bounded (bench B6)."""

from __future__ import annotations

import random
from dataclasses import replace
from collections.abc import Callable
from typing import Any, TypeVar

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.cards import CARDS
from referee.game import Game
from referee.rules import Rules
from referee.transport import codec, wire
from referee.views import CardPlayed, Event, SeatStatus, SeatView, Trick, TrickPlay, TrickWon

T = TypeVar("T")

CACHES: list[Any] = [value for value in vars(wire).values() if isinstance(value, (wire._Memo, wire._Shared))] + [wire._HEADS]


def empty_caches() -> None:
    for cache in CACHES:
        (cache._entries if isinstance(cache, wire._Shared) else cache).clear()


def play_games(count: int, first_seed: int = 0) -> list[tuple[SeatView, list[Event], int]]:
    asked = []
    for seed in range(first_seed, first_seed + count):
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


def test_warm_caches_give_the_bytes_of_empty_caches() -> None:
    asked = play_games(12)
    warm = [wire.view_to_request_bytes(view, events, number, 250, number % 7) for view, events, number in asked]
    again = [wire.view_to_request_bytes(view, events, number, 250, number % 7) for view, events, number in asked]
    cold = []
    for view, events, number in asked:
        empty_caches()
        cold.append(wire.view_to_request_bytes(view, events, number, 250, number % 7))
    assert warm == again == cold


def same_id(make: Callable[[], T], dropped: int) -> T:
    """A new object from ``make()`` with id ``dropped`` if the allocator hands that id out
    again within 1,000 tries (it does when nothing holds the dropped object), else any."""
    kept = []
    for _ in range(1000):
        candidate = make()
        if id(candidate) == dropped:
            return candidate
        kept.append(candidate)
    return kept[-1]


def test_a_reused_id_never_gets_another_objects_encoding() -> None:
    """An object dropped after it was encoded may leave its id to a new object: the new
    one is still encoded as itself (a cache holds what it keys by id alive, so the id is
    never handed out again; a cache that does not fails here)."""
    base = play_games(1)[0][0]
    trick, event = Trick(1, (TrickPlay(1, CARDS[0]),), 1), TrickWon(seat=1, trick_number=1)
    wire.view_to_request_bytes(replace(base, completed_tricks=(trick,)), [event], 0, 0, 0)
    trick_id, event_id = id(trick), id(event)
    del trick, event
    trick = same_id(lambda: Trick(2, (TrickPlay(2, CARDS[1]),), 2), trick_id)
    event = same_id(lambda: TrickWon(seat=2, trick_number=2), event_id)
    request = pb.DecisionRequest.FromString(wire.view_to_request_bytes(replace(base, completed_tricks=(trick,)), [event], 0, 0, 0))
    assert request.events[0].trick_won == pb.TrickWon(seat=2, trick_number=2)
    assert request.view.completed_tricks[0] == pb.Trick(leader=2, plays=[pb.TrickPlay(seat=2, card=codec.card_to_proto(CARDS[1]))], winner=2)


def test_a_reused_id_of_the_rules_or_status_never_gets_another_ones_encoding() -> None:
    base = play_games(1)[0][0]
    rules, status = Rules(start_hand_size=3), (SeatStatus.IN,) * base.num_seats
    wire.view_to_request_bytes(replace(base, rules=rules, status=status), [], 0, 0, 0)
    rules_id, status_id = id(rules), id(status)
    wire._RULES.clear()  # the by-value caches hold them too: as if they had filled up
    wire._STATUS.clear()
    del rules, status
    rules = same_id(lambda: Rules(start_hand_size=5), rules_id)
    status = same_id(lambda: tuple([SeatStatus.OUT] * base.num_seats), status_id)
    request = pb.DecisionRequest.FromString(wire.view_to_request_bytes(replace(base, rules=rules, status=status), [], 0, 0, 0))
    assert request.view.rules.start_hand_size == 5
    assert list(request.view.status) == [pb.SEAT_STATUS_OUT] * base.num_seats


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


def test_every_cache_stays_bounded() -> None:
    for view, events, number in play_games(60, first_seed=1000):
        wire.view_to_request_bytes(view, events, number, number * 37, number * 101)
    for value in range(wire.CACHE_MAX + 10):  # fresh events, each kept by identity
        wire.view_to_request_bytes(view, [CardPlayed(value % 7, CARDS[value % 52])], value, value, value)
    assert CACHES and all(len(cache) <= wire.CACHE_MAX for cache in CACHES)
