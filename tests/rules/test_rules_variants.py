"""Variants of rules.md §2 not covered by the worked cases, and the Game's setup checks."""

from __future__ import annotations

import random

import pytest

from referee.errors import ConfigError
from referee.game.cards import CARDS, Suit
from referee.game.dealing import shuffled_deck
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import ChooseTrump, DecisionKind, RoundEnded, RoundStarted, SeatStatus
from tests.rules.rules_helpers import DOG, IN, OUT, RoundPlan, play_out, play_plans

THREE = (IN, IN, IN)
R1_322 = RoundPlan(dealer=0, status=THREE, winners=[0, 1, 2, 0, 1, 2, 0])  # tricks 3, 2, 2

# (id, rules, rounds as (status, winners, dog_tricks), expected last RoundEnded, status after)
STRICT_CASES = [
    (
        "round 2 needs 2 tricks",
        Rules(required_tricks="strict"),
        [(THREE, [0, 1, 2, 0, 1, 2, 0], {}), (THREE, [0, 0, 0, 0, 1, 2], {})],
        RoundEnded(2, (4, 1, 1), (1, 2), ()),
        (IN, OUT, OUT),
    ),
    (
        "round 2 with 2 tricks each survives",
        Rules(required_tricks="strict"),
        [(THREE, [0, 1, 2, 0, 1, 2, 0], {}), (THREE, [0, 1, 2, 0, 1, 2], {})],
        RoundEnded(2, (2, 2, 2), (), ()),
        THREE,
    ),
    (
        "nobody meets 3 in round 3: the most tricks survive",
        Rules(required_tricks="strict"),
        [(THREE, [0, 1, 2, 0, 1, 2, 0], {}), (THREE, [0, 1, 2, 0, 1, 2], {}), (THREE, [0, 1, 2, 0, 1], {})],
        RoundEnded(3, (2, 2, 1), (2,), ()),
        (IN, IN, OUT),
    ),
    (
        "a dog needs one trick under strict",
        Rules(required_tricks="strict"),
        [(THREE, [0, 0, 0, 0, 0, 1, 1], {}), ((IN, IN, DOG), [0, 0, 1, 1, 2, 0], {2: 4})],
        RoundEnded(2, (3, 2, 1), (), ()),
        THREE,
    ),
    (
        "strict with any_round: a trick below the quota is knocked out, not a dog (W22)",
        Rules(required_tricks="strict", dog_life="any_round"),
        [(THREE, [0, 1, 2, 0, 1, 2, 0], {}), (THREE, [0, 0, 0, 0, 1, 2], {})],
        RoundEnded(2, (4, 1, 1), (1, 2), ()),
        (IN, OUT, OUT),
    ),
    (
        "strict with any_round: only a player with no trick gets the dog's life",
        Rules(required_tricks="strict", dog_life="any_round"),
        [(THREE, [0, 1, 2, 0, 1, 2, 0], {}), (THREE, [0, 0, 0, 0, 1, 1], {})],
        RoundEnded(2, (4, 2, 0), (), (2,)),
        (IN, IN, DOG),
    ),
]


StrictRound = tuple[tuple[SeatStatus, ...], list[int], dict[int, int]]


@pytest.mark.parametrize("name, rules, rounds, ended, status", STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_strict(
    name: str, rules: Rules, rounds: list[StrictRound], ended: RoundEnded, status: tuple[SeatStatus, ...]
) -> None:
    dealers = [0, 1, 2]
    plans = [
        RoundPlan(dealer=dealers[i], status=st, winners=winners, dog_tricks=dogs)
        for i, (st, winners, dogs) in enumerate(rounds)
    ]
    game = play_plans(plans, rules)
    assert [e for e in game.events if isinstance(e, RoundEnded)][-1] == ended
    assert game.view(0).status == status


def test_first_lead_trump_chooser() -> None:
    plans = [RoundPlan(dealer=0, status=(IN,) * 4, winners=[1, 1, 1, 0, 2, 3, 0])]
    default = play_plans(plans)
    chooser = play_plans(plans, Rules(first_lead="trump_chooser"))
    for game in (default, chooser):
        assert game.to_act == 1 and game.decision() is DecisionKind.CHOOSE_TRUMP
        game.apply(1, ChooseTrump(Suit.HEARTS))
    assert default.to_act == 2  # left of the round-2 dealer P1
    assert chooser.to_act == 1


def test_first_lead_trump_chooser_does_not_apply_to_round1() -> None:
    game = Game(4, Rules(first_lead="trump_chooser"), 3, first_dealer=1)
    assert game.to_act == 2


TIE = RoundPlan(dealer=0, status=THREE, winners=[0, 1, 0, 1, 0, 1, 2])  # P0 and P1 tie on 3


def chooser_of_round2(rules: Rules, seed: int) -> int:
    game = play_plans([TIE], rules, seed)
    started = game.events[-1]
    assert isinstance(started, RoundStarted) and started.trump_chooser is not None
    return started.trump_chooser


def test_trump_tiebreak_dealer_left() -> None:
    assert {chooser_of_round2(Rules(), seed) for seed in range(10)} == {1}


def test_trump_tiebreak_cut_is_seeded_and_among_the_tied() -> None:
    choosers = [chooser_of_round2(Rules(trump_tiebreak="cut"), seed) for seed in range(24)]
    assert set(choosers) == {0, 1}
    assert choosers == [chooser_of_round2(Rules(trump_tiebreak="cut"), seed) for seed in range(24)]


def test_cut_not_used_without_a_tie() -> None:
    for seed in range(10):
        assert play_plans([R1_322], Rules(trump_tiebreak="cut"), seed).to_act == 0


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_start_hand_size_sets_the_rounds(size: int) -> None:
    game = Game(2, Rules(start_hand_size=size), 11, first_dealer=0)
    play_out(game)
    sizes = [e.hand_size for e in game.events if isinstance(e, RoundStarted)]
    assert sizes == list(range(size, size - len(sizes), -1)) and len(sizes) <= size


@pytest.mark.parametrize(
    "players, rules, message",
    [
        (1, Rules(), "1 players"),
        (8, Rules(), "8 players"),
        (7, Rules(start_hand_size=8), "start_hand_size = 8"),
        (7, Rules(start_hand_size=0), "start_hand_size = 0"),
        (6, Rules(start_hand_size=9), "start_hand_size"),
    ],
)
def test_bad_setup_raises_config_error(players: int, rules: Rules, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Game(players, rules, 0)


def test_seven_players_seven_cards_is_fine() -> None:
    game = Game(7, Rules(), 0)
    assert sum(len(game.view(seat).hand) for seat in range(7)) == 49


def test_bad_first_dealer() -> None:
    with pytest.raises(ConfigError, match="first_dealer = 4"):
        Game(4, Rules(), 0, first_dealer=4)


def test_first_dealer_drawn_from_the_seed() -> None:
    dealers = [Game(5, Rules(), seed).first_dealer for seed in range(40)]
    assert set(dealers) == set(range(5))
    assert dealers == [Game(5, Rules(), seed).first_dealer for seed in range(40)]
    assert [e.dealer for e in Game(5, Rules(), 3).events if isinstance(e, RoundStarted)] == [Game(5, Rules(), 3).first_dealer]


@pytest.mark.parametrize(
    "deck, message",
    [
        (list(CARDS[:51]) + [CARDS[0]], "deck for round 2: card 2S appears twice"),
        (list(CARDS[:51]), "deck for round 2: has 51 cards, expected 52; missing AC"),
        (list(CARDS[:51]) + ["AC"], "deck for round 2: position 51 holds 'AC', which is not a card"),
    ],
)
def test_bad_deck(deck: list[object], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        Game(3, Rules(), 0, decks={2: deck})  # type: ignore[dict-item]
    assert message in str(error.value)


def test_fixed_deck_leaves_other_rounds_unchanged() -> None:
    fixed = random.Random(1).sample(CARDS, 52)
    plain, patched = Game(2, Rules(), 42, first_dealer=0), Game(2, Rules(), 42, first_dealer=0, decks={2: fixed})
    play_out(plain)
    play_out(patched)
    assert plain.rounds[0].deck == patched.rounds[0].deck == shuffled_deck(42, 1)
    assert patched.rounds[1].deck == tuple(fixed)
    for game in (plain, patched):
        for record in game.rounds:
            if record.round_number != 2 or game is plain:
                assert record.deck == shuffled_deck(42, record.round_number)


def test_same_seed_same_game_other_seed_other_deal() -> None:
    games = [Game(4, Rules(), seed) for seed in (7, 7, 8)]
    for game in games:
        play_out(game)
    assert games[0].events == games[1].events and games[0].outcome == games[1].outcome
    assert games[0].rounds[0].deck != games[2].rounds[0].deck


def test_rounds_record_the_current_round() -> None:
    game = play_plans([R1_322])
    assert [r.round_number for r in game.rounds] == [1, 2]
    first, current = game.rounds
    assert first.tricks_won == (3, 2, 2) and [t.winner for t in first.tricks] == [0, 1, 2, 0, 1, 2, 0]
    assert first.trump_chooser is None and first.turn_up is not None and first.trump == first.turn_up.suit
    assert current.trump is None and current.trump_chooser == 0 and current.tricks == ()
    assert [len(hand) for hand in current.hands] == [6, 6, 6]
