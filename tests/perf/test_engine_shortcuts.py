"""The engine's shortcuts (B3) change nothing observable.

The engine keeps cards as positions in canonical order, shares immutable values between
views, and shuffles by an argsort. Each shortcut is checked here against the plain way of doing the same
thing, written independently of the engine.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.game.cards import CARDS, Card, Rank, Suit
from referee.game.dealing import deal, deal_positions, shuffled_deck, shuffled_positions
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Play, SeatStatus, Trick


def reference_deck(seed: int, round_number: int) -> tuple[Card, ...]:
    """rules.md R3 as first written: 52 seeded keys, cards stably sorted by key."""
    generator = random.Random(f"{seed}:deck:{round_number}")
    keys = [generator.random() for _ in CARDS]
    return tuple(card for _, _, card in sorted(zip(keys, range(52), CARDS)))


def reference_deal(
    deck: tuple[Card, ...], dealer: int, status: list[SeatStatus], hand_size: int
) -> tuple[list[list[Card]], int]:
    """rules.md R6 one card at a time: a dog takes one card, on the first pass only."""
    seats = len(status)
    order = [(dealer + step) % seats for step in range(1, seats + 1)]
    hands: list[list[Card]] = [[] for _ in status]
    position = 0
    for round_of_dealing in range(hand_size):
        for seat in order:
            if status[seat] is SeatStatus.OUT or (status[seat] is SeatStatus.DOG and round_of_dealing > 0):
                continue
            hands[seat].append(deck[position])
            position += 1
    return [sorted(hand, key=CARDS.index) for hand in hands], position


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(-(10**12), 10**12), round_number=st.integers(1, 12))
def test_the_shuffle_is_the_seeded_stable_sort(seed: int, round_number: int) -> None:
    deck = shuffled_deck(seed, round_number)
    assert deck == reference_deck(seed, round_number)
    assert deck == tuple(CARDS[position] for position in shuffled_positions(seed, round_number))


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    status=st.lists(st.sampled_from([SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT]), min_size=2, max_size=7),
    data=st.data(),
)
def test_dealing_positions_deals_as_one_card_at_a_time(
    seed: int, status: list[SeatStatus], data: st.DataObject
) -> None:
    dealer = data.draw(st.integers(0, len(status) - 1))
    hand_size = data.draw(st.integers(1, 51 // len(status)))
    deck = shuffled_deck(seed, 1)
    expected = reference_deal(deck, dealer, status, hand_size)
    assert deal(deck, dealer, status, hand_size) == expected
    positions, dealt = deal_positions([CARDS.index(card) for card in deck], dealer, status, hand_size)
    assert ([[CARDS[p] for p in hand] for hand in positions], dealt) == expected


def play_views(game: Game, choose: random.Random) -> None:
    """Play ``game`` out, checking what views share while it goes."""
    seen_completed: dict[int, Trick] = {}
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        other = game.view((seat + 1) % game.num_seats)
        again = game.view(seat)
        assert again == view and again is not view
        assert other.current_trick is view.current_trick  # one Trick until the next action
        for number, trick in enumerate(view.completed_tricks):  # built once, shared by every view
            key = view.round_number * 100 + number
            assert seen_completed.setdefault(key, trick) is trick
            assert other.completed_tricks[number] is trick
        assert view.legal is game.legal_actions()
        game.apply(seat, choose.choice(view.legal))
        if not game.over:  # an action makes a new current trick (or none, between rounds)
            assert game.view(seat).current_trick is not view.current_trick or view.current_trick is None


def test_views_share_completed_tricks_and_the_current_trick() -> None:
    for seed in range(12):
        rules = Rules(dog_life=("round1", "any_round", "off")[seed % 3], allow_no_trump=seed % 2 == 0)
        play_views(Game(2 + seed % 6, rules, seed, game_id=f"g{seed}"), random.Random(seed))


def test_rounds_records_share_the_tricks_of_the_views() -> None:
    game = Game(4, Rules(), 3)
    completed: list[Trick] = []
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if view.round_number == 1:
            completed = list(view.completed_tricks)
        game.apply(seat, view.legal[-1])
    assert all(a is b for a, b in zip(completed, game.rounds[0].tricks))


def test_an_equal_card_that_is_not_the_engines_own_plays_the_same() -> None:
    def run(fresh: bool) -> tuple[object, ...]:
        game = Game(3, Rules(), 11)
        while not game.over:
            seat = game.to_act
            assert seat is not None
            action = game.view(seat).legal[0]
            if fresh and isinstance(action, Play):
                action = Play(Card(Rank(int(action.card.rank)), Suit(int(action.card.suit))))
            game.apply(seat, action)
        return tuple(game.events), tuple(game.rounds), game.outcome

    assert run(fresh=True) == run(fresh=False)
