"""DESIGN.md §3: a seat's requests depend only on what that seat may know.

For each request sent to seat s, build another game in the same information set — the
cards seat s cannot see (other seats' unplayed cards and the undealt stock, never the
turn-up) shuffled among themselves — replay the same public history, and assert that the
request sent to seat s there is byte-identical.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from referee.cards import Card
from referee.errors import IllegalAction
from referee.game import Game, replay
from referee.rules import Rules
from referee.transport.codec import request_to_view, view_to_request
from referee.views import Action, CardPlayed, fallback_action


@dataclass
class Request:
    decision: int  # index in the game's action list
    round_number: int
    events_from: int
    wire: bytes


def play_recording(num_seats: int, rules: Rules, seed: int, watched: int) -> tuple[Game, list[tuple[int, Action]], list[Request]]:
    """Play a game with a deterministic policy; record every request seat ``watched`` is sent."""
    game = Game(num_seats, rules, seed, game_id="info-set")
    actions: list[tuple[int, Action]] = []
    requests: list[Request] = []
    sent = 0
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if seat == watched:
            wire = view_to_request(view, game.events[sent:], len(actions), 500, 0).SerializeToString(deterministic=True)
            requests.append(Request(len(actions), view.round_number, sent, wire))
            sent = len(game.events)
        action = fallback_action(view)
        actions.append((seat, action))
        game.apply(seat, action)
    return game, actions, requests


def hidden_shuffle(game: Game, seed: int, round_number: int, seat: int, prefix: list[tuple[int, Action]], rng: random.Random) -> dict[int, list[Card]]:
    """Decks for every round so far, with round ``round_number``'s cards unseen by ``seat`` shuffled."""
    decks = {r.round_number: list(r.deck) for r in game.rounds if r.round_number <= round_number}
    record = game.rounds[round_number - 1]
    at_request = replay(len(record.hands), game.rules, seed, game.first_dealer, decks, prefix, "info-set").view(seat)
    tricks = [*at_request.completed_tricks, *([at_request.current_trick] if at_request.current_trick else [])]
    played = {play.card for trick in tricks for play in trick.plays if play.card is not None}
    visible = set(record.hands[seat]) | played  # this round's plays are public
    if record.turn_up is not None:
        visible.add(record.turn_up)
    deck = decks[round_number]
    hidden = [i for i, card in enumerate(deck) if card not in visible]
    cards = [deck[i] for i in hidden]
    rng.shuffle(cards)
    for i, card in zip(hidden, cards):
        deck[i] = card
    return decks


CASES = [
    (2, Rules(), 11),
    (3, Rules(), 12),
    (4, Rules(), 13),
    (5, Rules(dog_life="any_round", allow_no_trump=True), 14),
    (7, Rules(turn_up="bottom", first_lead="trump_chooser"), 15),
    (4, Rules(required_tricks="strict", trump_tiebreak="cut", dog_play="first_trick"), 16),
]


@pytest.mark.parametrize(("num_seats", "rules", "seed"), CASES)
def test_requests_to_a_seat_do_not_depend_on_cards_it_cannot_see(num_seats: int, rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    compared = 0
    changed_other_hands = 0
    for watched in range(num_seats):
        game, actions, requests = play_recording(num_seats, rules, seed, watched)
        for request in requests:
            prefix = actions[: request.decision]
            for _attempt in range(30):
                decks = hidden_shuffle(game, seed, request.round_number, watched, prefix, rng)
                try:
                    other = replay(num_seats, rules, seed, game.first_dealer, decks, prefix, "info-set")
                except IllegalAction:
                    continue  # the shuffle broke a void shown in play; draw again
                break
            else:
                continue
            if other.rounds[-1].hands != game.rounds[request.round_number - 1].hands:
                changed_other_hands += 1
            assert other.to_act == watched
            wire = view_to_request(other.view(watched), other.events[request.events_from :], request.decision, 500, 0)
            assert wire.SerializeToString(deterministic=True) == request.wire, (
                f"seat {watched} decision {request.decision}: the request changed when only hidden cards changed"
            )
            compared += 1
    assert compared > 20
    assert changed_other_hands > compared // 2, "the hidden shuffle must really change other seats' hands"


def test_played_cards_are_public_and_hands_private() -> None:
    """Sanity check of the premise: a request carries the seat's own hand and nobody else's."""
    game = Game(4, Rules(), 5, game_id="g")
    view = game.view(game.to_act or 0)
    decoded, _ = request_to_view(view_to_request(view, game.events, 0, 500, 0))
    assert set(decoded.hand) == set(game.rounds[0].hands[view.seat])
    others = set().union(*(set(r) for s, r in enumerate(game.rounds[0].hands) if s != view.seat))
    assert not others & set(decoded.hand)
    assert all(not isinstance(e, CardPlayed) for e in game.events)
