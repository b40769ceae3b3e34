"""docs/design.md §3: a seat's requests depend only on what that seat may know.

For each request sent to seat s, build another game in the same information set — the
cards seat s cannot see (other seats' unplayed cards, the undealt stock, and under
``dog_play = "first_trick"`` a dog's card committed face down to the trick in progress,
docs/rules.md W24; never the turn-up) shuffled among themselves — replay the same
history, and assert that the request sent to seat s there is byte-identical.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from referee.errors import IllegalAction
from referee.game.cards import Card
from referee.game.engine import Game, replay
from referee.game.rules import Rules
from referee.game.views import Action, CardPlayed, Play, SeatStatus, fallback_action
from referee.transport.codec import request_to_view, view_to_request


@dataclass
class Request:
    decision: int  # index in the game's action list
    round_number: int
    events_from: int
    wire: bytes
    completed: int  # tricks of the round completed before the request
    status: tuple[SeatStatus, ...]  # each seat's status in the round


@dataclass
class Recording:
    game: Game
    actions: list[tuple[int, Action]]  # (seat, action) in order
    rounds: list[int]  # the round of each action
    requests: list[Request]  # those sent to the watched seat


def play_recording(num_seats: int, rules: Rules, seed: int, watched: int) -> Recording:
    """Play a game with a deterministic policy; record every request seat ``watched`` is sent."""
    game = Game(num_seats, rules, seed, game_id="info-set")
    actions: list[tuple[int, Action]] = []
    rounds: list[int] = []
    requests: list[Request] = []
    sent = 0
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        rounds.append(view.round_number)
        if seat == watched:
            wire = view_to_request(view, game.events[sent:], len(actions), 500, 0).SerializeToString(deterministic=True)
            requests.append(Request(len(actions), view.round_number, sent, wire, len(view.completed_tricks), view.status))
            sent = len(game.events)
        action = fallback_action(view)
        actions.append((seat, action))
        game.apply(seat, action)
    return Recording(game, actions, rounds, requests)


def face_down_unseen(recording: Recording, request: Request, seat: int) -> set[Card]:
    """The cards dogs committed face down to the trick in progress at ``request`` that
    ``seat`` may not see yet (docs/rules.md W24), from the rules, not from the views."""
    game = recording.game
    if game.rules.dog_play != "first_trick":
        return set()
    record = game.rounds[request.round_number - 1]
    completed = {play.card for trick in record.tricks[: request.completed] for play in trick.plays}
    return {
        action.card
        for index, (who, action) in enumerate(recording.actions[: request.decision])
        if recording.rounds[index] == request.round_number
        and isinstance(action, Play)
        and action.card not in completed
        and who != seat
        and request.status[who] is SeatStatus.DOG
    }


def hidden_shuffle(recording: Recording, request: Request, seat: int, rng: random.Random) -> tuple[dict[int, list[Card]], list[tuple[int, Action]]]:
    """Decks for every round so far, with round ``round_number``'s cards unseen by ``seat``
    shuffled, and the actions up to the request with a face-down card renamed to the card
    now dealt in its place."""
    game, round_number = recording.game, request.round_number
    decks = {r.round_number: list(r.deck) for r in game.rounds if r.round_number <= round_number}
    record = game.rounds[round_number - 1]
    prefix = recording.actions[: request.decision]
    played = {action.card for index, (_, action) in enumerate(prefix) if recording.rounds[index] == round_number and isinstance(action, Play)}
    visible = set(record.hands[seat]) | (played - face_down_unseen(recording, request, seat))  # this round's face-up plays are public
    if record.turn_up is not None:
        visible.add(record.turn_up)
    deck = decks[round_number]
    hidden = [i for i, card in enumerate(deck) if card not in visible]
    cards = [deck[i] for i in hidden]
    rng.shuffle(cards)
    renamed = {deck[i]: card for i, card in zip(hidden, cards)}
    for i, card in zip(hidden, cards):
        deck[i] = card
    actions = [
        (who, Play(renamed.get(action.card, action.card)) if recording.rounds[index] == round_number and isinstance(action, Play) else action)
        for index, (who, action) in enumerate(prefix)
    ]
    return decks, actions


CASES = [
    (2, Rules(), 11),
    (3, Rules(), 12),
    (4, Rules(), 13),
    (5, Rules(dog_life="any_round", allow_no_trump=True), 14),
    (7, Rules(turn_up="bottom", first_lead="trump_chooser"), 15),
    (4, Rules(required_tricks="strict", trump_tiebreak="cut", dog_play="first_trick"), 16),
]


@dataclass
class Compared:
    requests: int = 0  # requests compared with their twin in another game
    changed_other_hands: int = 0  # of which the twin dealt other seats other hands
    face_down: int = 0  # of which a face-down card the seat may not see was changed


def compare_requests(num_seats: int, rules: Rules, seed: int) -> Compared:
    """Check every request of every seat against its twin in the same information set."""
    rng = random.Random(seed)
    seen = Compared()
    for watched in range(num_seats):
        recording = play_recording(num_seats, rules, seed, watched)
        game = recording.game
        for request in recording.requests:
            for _attempt in range(30):
                decks, prefix = hidden_shuffle(recording, request, watched, rng)
                try:
                    other = replay(num_seats, rules, seed, game.first_dealer, decks, prefix, "info-set")
                except IllegalAction:
                    continue  # the shuffle broke a void shown in play; draw again
                break
            else:
                continue
            if other.rounds[-1].hands != game.rounds[request.round_number - 1].hands:
                seen.changed_other_hands += 1
            if face_down_unseen(recording, request, watched):
                seen.face_down += 1
            assert other.to_act == watched
            wire = view_to_request(other.view(watched), other.events[request.events_from :], request.decision, 500, 0)
            assert wire.SerializeToString(deterministic=True) == request.wire, (
                f"seat {watched} decision {request.decision}: the request changed when only hidden cards changed"
            )
            seen.requests += 1
    return seen


@pytest.mark.parametrize(("num_seats", "rules", "seed"), CASES)
def test_requests_to_a_seat_do_not_depend_on_cards_it_cannot_see(num_seats: int, rules: Rules, seed: int) -> None:
    seen = compare_requests(num_seats, rules, seed)
    assert seen.requests > 20
    assert seen.changed_other_hands > seen.requests // 2, "the hidden shuffle must really change other seats' hands"


@pytest.mark.parametrize("num_seats", [3, 5, 6])
def test_a_face_down_card_is_hidden_from_the_seats_after_the_dog(num_seats: int) -> None:
    """docs/rules.md W24: under ``dog_play = "first_trick"`` the seats that play after a dog
    in the first trick see that it has played, not which card, until the trick is complete."""
    seen = Compared()
    for seed in range(4):
        one = compare_requests(num_seats, Rules(dog_play="first_trick"), seed)
        seen.requests += one.requests
        seen.face_down += one.face_down
    assert seen.requests > 20
    assert seen.face_down >= 1, "no request came while a face-down card was unseen: pick other seeds"


def test_played_cards_are_public_and_hands_private() -> None:
    """Sanity check of the premise: a request carries the seat's own hand and nobody else's."""
    game = Game(4, Rules(), 5, game_id="g")
    view = game.view(game.to_act or 0)
    decoded, _ = request_to_view(view_to_request(view, game.events, 0, 500, 0))
    assert set(decoded.hand) == set(game.rounds[0].hands[view.seat])
    others = set().union(*(set(r) for s, r in enumerate(game.rounds[0].hands) if s != view.seat))
    assert not others & set(decoded.hand)
    assert all(not isinstance(e, CardPlayed) for e in game.events)
