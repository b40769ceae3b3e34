"""The worked cases W1-W20, W22-W25 of docs/rules.md §4 (W19 in test_rules_rejects, W21 in test_rules_properties)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from tests.rules.rules_helpers import DOG, IN, OUT, RoundPlan, build_deck, card, play_plans, play_round, planned_game

from referee.errors import IllegalAction
from referee.game.cards import CARDS, Suit
from referee.game.engine import Game
from referee.game.gamelog import round_summary
from referee.game.rules import Rules
from referee.game.views import (
    CardPlayed,
    CardRevealed,
    ChooseTrump,
    DecisionKind,
    Pass,
    Play,
    RoundEnded,
    RoundStarted,
    SeatStatus,
    TrickPlay,
    TrickWon,
    TrumpChosen,
)

# --- W1-W5: one trick, three players; round 1 of a 2-card game, dealer P2 so P0 leads --------

TRICK_CASES = [
    # id, turn-up (sets trump), hands, steps (seat, card, legal?), trick winner
    ("W1", "2H", {0: "7C 2D", 1: "KC AS", 2: "3C 4C"}, [(0, "7C", True), (1, "AS", False), (1, "KC", True), (2, "3C", True)], 1),
    ("W2", "3H", {0: "7C 2D", 1: "2H AS", 2: "AC 5D"}, [(0, "7C", True), (1, "2H", True), (2, "AC", True)], 1),
    ("W3", "2H", {0: "2C 3D", 1: "AS KD", 2: "3C 9H"}, [(0, "2C", True), (1, "AS", True), (2, "9H", False), (2, "3C", True)], 2),
    ("W4", "2H", {0: "AC 2D", 1: "5H 2S", 2: "9H 3D"}, [(0, "AC", True), (1, "5H", True), (2, "9H", True)], 2),
    ("W5", "2D", {0: "9C 3S", 1: "QC 4S", 2: "2C 5S"}, [(0, "9C", True), (1, "QC", True), (2, "2C", True)], 1),
]


@pytest.mark.parametrize("case, turn_up, hands, steps, winner", TRICK_CASES, ids=[c[0] for c in TRICK_CASES])
def test_one_trick(case: str, turn_up: str, hands: dict[int, str], steps: list[tuple[int, str, bool]], winner: int) -> None:
    deck = build_deck(2, 3, hands, 2, turn_up=turn_up)
    game = Game(3, Rules(start_hand_size=2), 1, first_dealer=2, decks={1: deck})
    assert game.view(0).trump == card(turn_up).suit
    for seat, text, legal in steps:
        if legal:
            game.apply(seat, Play(card(text)))
        else:
            with pytest.raises(IllegalAction, match="must follow suit"):
                game.apply(seat, Play(card(text)))
            led = card(steps[0][1]).suit
            held = {card(text) for text in hands[seat].split()}
            assert game.legal_actions() == tuple(Play(c) for c in CARDS if c in held and c.suit == led)
    assert game.events[-1] == TrickWon(winner, 1)
    assert game.to_act == winner  # R14: the winner leads the next trick


def test_w1_message_names_seat_suit_hand_and_card() -> None:
    deck = build_deck(2, 3, {0: "7C 2D", 1: "KC AS", 2: "3C 4C"}, 2, turn_up="2H")
    game = Game(3, Rules(start_hand_size=2), 1, first_dealer=2, decks={1: deck})
    game.apply(0, Play(card("7C")))
    with pytest.raises(IllegalAction) as error:
        game.apply(1, Play(card("AS")))
    assert "seat 1 must follow suit ♣: holds KC; played AS" in str(error.value)
    assert game.legal_actions() == (Play(card("KC")),)


# --- W6: no trump ------------------------------------------------------------------------------

W6_ROUND1 = RoundPlan(dealer=1, status=(IN, IN, IN), winners=[2, 0, 1])  # P2 leads; 1 trick each


def w6_game(rules: Rules) -> Game:
    round2 = build_deck(2, 3, {0: "5D 3C", 1: "AS 2S", 2: "9D 4C"}, 2)
    decks = {1: W6_ROUND1.deck(), 2: round2}
    game = Game(3, rules, 0, first_dealer=1, decks=decks)
    play_round(game, W6_ROUND1)
    assert game.to_act == 2 and game.decision() is DecisionKind.CHOOSE_TRUMP  # R10: first tied left of P1
    return game


@pytest.mark.parametrize("trump, winner", [(None, 2), (Suit.SPADES, 1)])
def test_w6_no_trump(trump: Suit | None, winner: int) -> None:
    game = w6_game(Rules(allow_no_trump=True, start_hand_size=3))
    assert game.legal_actions() == tuple(ChooseTrump(s) for s in Suit) + (ChooseTrump(None),)
    game.apply(2, ChooseTrump(trump))
    assert game.events[-1] == TrumpChosen(2, trump)
    view = game.view(0)
    assert view.trump is trump and view.no_trump is (trump is None)
    for seat, text in [(0, "5D"), (1, "AS"), (2, "9D")]:
        game.apply(seat, Play(card(text)))
    assert game.events[-1] == TrickWon(winner, 1)


def test_w6_no_trump_not_legal_by_default() -> None:
    game = w6_game(Rules(start_hand_size=3))
    assert game.legal_actions() == tuple(ChooseTrump(s) for s in Suit)
    with pytest.raises(IllegalAction, match="no trump"):
        game.apply(2, ChooseTrump(None))


# --- W7, W8: the round-1 deal ----------------------------------------------------------------


@pytest.mark.parametrize(
    "case, players, dealer, turn_up, turn_up_at",
    [("W7", 4, 3, "top", 28), ("W7 bottom", 4, 3, "bottom", 51), ("W8", 7, 6, "top", 49), ("W8 bottom", 7, 6, "bottom", 51)],
)
def test_round1_deal(case: str, players: int, dealer: int, turn_up: str, turn_up_at: int) -> None:
    deck = random.Random(case).sample(CARDS, 52)
    game = Game(players, Rules(turn_up=turn_up), 9, first_dealer=dealer, decks={1: deck})  # type: ignore[arg-type]
    dealt = players * 7
    for seat in range(players):
        expected = {deck[i] for i in range(dealt) if i % players == seat}
        view = game.view(seat)
        assert set(view.hand) == expected and len(view.hand) == 7
        assert list(view.hand) == sorted(view.hand, key=CARDS.index)  # canonical order
        assert view.turn_up == deck[turn_up_at] and view.trump == deck[turn_up_at].suit
    assert game.events[:2] == [
        RoundStarted(1, dealer, 7, (IN,) * players, deck[turn_up_at], None),
        TrumpChosen(None, deck[turn_up_at].suit),
    ]
    assert game.to_act == 0 and game.decision() is DecisionKind.PLAY  # R11: left of the dealer leads
    assert game.rounds[0].deck == tuple(deck)


# --- W9-W13, W16, W18: ends of rounds ---------------------------------------------------------


def test_w9_two_players_four_three() -> None:
    game = play_plans([RoundPlan(dealer=0, status=(IN, IN), winners=[0, 0, 0, 0, 1, 1, 1])])
    assert game.events[-2] == RoundEnded(1, (4, 3), (), ())
    assert game.events[-1] == RoundStarted(2, 1, 6, (IN, IN), None, 0)
    assert game.to_act == 0 and game.decision() is DecisionKind.CHOOSE_TRUMP
    assert len(game.view(0).hand) == 6 and len(game.view(1).hand) == 6
    game.apply(0, ChooseTrump(Suit.CLUBS))
    assert game.to_act == 0  # left of dealer P1 leads


def test_w10_dog_life_in_round1() -> None:
    game = play_plans([RoundPlan(dealer=0, status=(IN,) * 4, winners=[0, 1, 2, 0, 1, 2, 0])])
    assert game.events[-2] == RoundEnded(1, (3, 2, 2, 0), (), (3,))
    assert game.events[-1] == RoundStarted(2, 1, 6, (IN, IN, IN, DOG), None, 0)
    assert [len(game.view(seat).hand) for seat in range(4)] == [6, 6, 6, 1]
    game.apply(0, ChooseTrump(Suit.HEARTS))
    assert game.to_act == 2
    assert game.view(3).dog_life_used


def test_w11_several_dogs() -> None:
    game = play_plans([RoundPlan(dealer=0, status=(IN,) * 5, winners=[0, 1, 2, 0, 1, 2, 0])])
    assert game.events[-2] == RoundEnded(1, (3, 2, 2, 0, 0), (), (3, 4))
    assert game.view(0).status == (IN, IN, IN, DOG, DOG)


def test_w12_no_dog_life_after_round1() -> None:
    game = play_plans(
        [
            RoundPlan(dealer=0, status=(IN,) * 4, winners=[0, 1, 2, 3, 0, 1, 2]),
            RoundPlan(dealer=1, status=(IN,) * 4, winners=[0, 1, 2, 3, 0, 1]),
            RoundPlan(dealer=2, status=(IN,) * 4, winners=[0, 0, 1, 1, 2]),
        ]
    )
    assert game.events[-2] == RoundEnded(3, (2, 2, 1, 0), (3,), ())
    assert game.view(0).status == (IN, IN, IN, OUT)


@pytest.mark.parametrize("dog_life, knocked_out, dogs", [("round1", (2,), ()), ("any_round", (), (2,))])
def test_w13_dog_life_any_round(dog_life: str, knocked_out: tuple[int, ...], dogs: tuple[int, ...]) -> None:
    plans = [
        RoundPlan(dealer=0, status=(IN,) * 3, winners=[0, 1, 2, 0, 1, 2, 0]),
        RoundPlan(dealer=1, status=(IN,) * 3, winners=[0, 0, 1, 0, 1, 0]),
    ]
    game = play_plans(plans, Rules(dog_life=dog_life))  # type: ignore[arg-type]
    assert game.events[-2] == RoundEnded(2, (4, 2, 0), knocked_out, dogs)


def test_w16_all_tricks_knocks_out_the_rest() -> None:
    game = play_plans(
        [
            RoundPlan(dealer=0, status=(IN,) * 3, winners=[0, 0, 0, 1, 1, 1, 1]),
            RoundPlan(dealer=1, status=(IN, IN, DOG), winners=[0, 0, 1, 1, 2, 0], dog_tricks={2: 4}),
            RoundPlan(dealer=2, status=(IN,) * 3, winners=[0] * 5),
        ]
    )
    assert [e for e in game.events if isinstance(e, RoundStarted)][2].trump_chooser == 0
    assert game.events[-2] == RoundEnded(3, (5, 0, 0), (1, 2), ())
    assert game.over and game.outcome is not None
    assert game.outcome.winner == 0
    assert game.outcome.placements == (1, 2, 2)
    assert game.outcome.knocked_out_round == (None, 3, 3)


def test_w18_dog_life_off() -> None:
    game = play_plans([RoundPlan(dealer=0, status=(IN,) * 4, winners=[0, 2, 3, 0, 2, 3, 0])], Rules(dog_life="off"))
    assert game.events[-2] == RoundEnded(1, (3, 0, 2, 2), (1,), ())
    started = game.events[-1]
    assert isinstance(started, RoundStarted) and started.dealer == 2
    assert started.trump_chooser is not None
    game.apply(started.trump_chooser, ChooseTrump(Suit.SPADES))
    assert game.to_act == 3


# --- W14, W15: the dog's play ------------------------------------------------------------------

DOG_ROUND1 = RoundPlan(dealer=0, status=(IN,) * 4, winners=[0, 1, 2, 0, 1, 2, 0])  # P3 becomes a dog


def test_w14_dog_may_pass_or_play_even_holding_the_led_suit() -> None:
    round2 = build_deck(1, 4, {0: "3D", 1: "4D", 2: "9D", 3: "2D"}, 6, status=(IN, IN, IN, DOG))
    game = Game(4, Rules(), 0, first_dealer=0, decks={1: DOG_ROUND1.deck(), 2: round2})
    play_round(game, DOG_ROUND1)
    game.apply(0, ChooseTrump(Suit.SPADES))
    game.apply(2, Play(card("9D")))
    assert game.to_act == 3
    assert game.legal_actions() == (Play(card("2D")), Pass())
    assert game.view(3).legal == (Play(card("2D")), Pass())
    game.apply(3, Pass())
    assert game.to_act == 0
    assert game.view(0).current_trick is not None
    assert [p.card for p in game.view(0).current_trick.plays] == [card("9D"), None]  # type: ignore[union-attr]


def test_w15_dog_may_not_pass_on_the_last_trick() -> None:
    round2 = RoundPlan(dealer=1, status=(IN, IN, IN, DOG), winners=[0, 1, 2, 0, 1, 2], dog_tricks={3: 5})
    game = planned_game([DOG_ROUND1, round2])
    play_round(game, DOG_ROUND1)
    play_round(game, round2, tricks=5)
    while game.to_act != 3:
        play = round2.planned_tricks()[5]
        game.apply(game.to_act, Play(play[game.to_act]))  # type: ignore[arg-type, index]
    dog_card = round2.planned_tricks()[5][3]
    assert game.legal_actions() == (Play(dog_card),)
    with pytest.raises(IllegalAction, match="last trick"):
        game.apply(3, Pass())
    game.apply(3, Play(dog_card))


# --- W24: the dog's face-down card under dog_play = "first_trick" ------------------------------

FACE_DOWN = Rules(dog_play="first_trick", first_lead="trump_chooser")


def test_w24_a_face_down_card_is_hidden_until_the_trick_is_complete() -> None:
    """W24 (seats relabelled so that play goes clockwise): P0 leads 9H, the dog P1 commits
    AH face down, P2 is to play."""
    round1 = RoundPlan(dealer=0, status=(IN,) * 3, winners=[0, 2, 0, 2, 0, 2, 0])  # P1 takes no trick: a dog
    round2 = build_deck(1, 3, {0: "9H", 1: "AH", 2: "2H"}, 6, status=(IN, DOG, IN))
    game = Game(3, FACE_DOWN, 0, first_dealer=0, decks={1: round1.deck(), 2: round2})
    play_round(game, round1)
    game.apply(0, ChooseTrump(Suit.SPADES))
    game.apply(0, Play(card("9H")))
    game.apply(1, Play(card("AH")))
    assert game.to_act == 2
    p2 = game.view(2)
    assert p2.current_trick is not None and p2.current_trick.plays == (TrickPlay(0, card("9H")), TrickPlay(1, None, face_down=True))
    assert (p2.to_play, p2.led_suit) == ((2,), Suit.HEARTS)
    own = game.view(1).current_trick
    assert own is not None and own.plays[1] == TrickPlay(1, card("AH"), face_down=True)
    assert game.events[-1] == CardPlayed(1, None, face_down=True)
    game.apply(2, Play(card("2H")))
    assert game.events[-2:] == [CardRevealed(1, card("AH")), TrickWon(1, 1)]
    for seat in range(3):
        assert game.view(seat).completed_tricks[0].plays[1] == TrickPlay(1, card("AH"), face_down=True)
    assert game.rounds[1].tricks[0].plays[1].card == card("AH")  # the record holds the real card
    assert round_summary(game.rounds[1])["tricks"][0]["plays"][1] == [1, "AH"]  # so do replay and trace


def test_w24_a_face_down_lead_sets_no_suit() -> None:
    """The dog due to lead commits face down; the first card played face up sets the suit
    to follow (others cannot follow a suit they do not see), and the face-down card is
    judged by it when the trick is complete (R13)."""
    round1 = RoundPlan(dealer=0, status=(IN,) * 3, winners=[0, 1, 0, 1, 0, 1, 0])  # P2 takes no trick: a dog
    round2 = build_deck(1, 3, {0: "2C KD", 1: "3C AH KH QH JH TH", 2: "AD"}, 6, status=(IN, IN, DOG))
    game = Game(3, Rules(dog_play="first_trick"), 0, first_dealer=0, decks={1: round1.deck(), 2: round2})
    play_round(game, round1)
    assert game.to_act == 0  # most tricks: names trump
    game.apply(0, ChooseTrump(Suit.SPADES))
    assert game.to_act == 2  # left of the dealer leads (R11): the dog
    game.apply(2, Play(card("AD")))
    assert game.view(0).led_suit is None
    assert Play(card("2C")) in game.legal_actions() and Play(card("KD")) in game.legal_actions()
    game.apply(0, Play(card("2C")))
    assert game.view(1).legal == (Play(card("3C")),)  # follows clubs, the first suit seen
    game.apply(1, Play(card("3C")))
    trick = game.view(0).completed_tricks[0]
    assert (trick.leader, trick.winner) == (2, 1)  # AD is not of the suit led: it cannot win


# --- W17: the last round ----------------------------------------------------------------------


def test_w17_last_round_one_card_game() -> None:
    deck = build_deck(0, 3, {0: "AC", 1: "9C", 2: "2H"}, 1, turn_up="3H")
    game = Game(3, Rules(start_hand_size=1), 0, first_dealer=0, decks={1: deck})
    for seat, text in [(1, "9C"), (2, "2H"), (0, "AC")]:
        game.apply(seat, Play(card(text)))
    assert game.events[-2] == RoundEnded(1, (0, 0, 1), (0, 1), ())  # no dog's life in the last round
    assert game.over and game.outcome is not None and game.outcome.winner == 2


def test_w17_round7_with_a_dog_from_round6() -> None:
    three = (IN, IN, IN)
    plans = [
        RoundPlan(dealer=0, status=three, winners=[0, 1, 2, 0, 1, 2, 0]),
        RoundPlan(dealer=1, status=three, winners=[0, 1, 2, 0, 1, 2]),
        RoundPlan(dealer=2, status=three, winners=[0, 1, 2, 0, 1]),
        RoundPlan(dealer=0, status=three, winners=[0, 1, 2, 0]),
        RoundPlan(dealer=1, status=three, winners=[0, 1, 2]),
        RoundPlan(dealer=2, status=three, winners=[0, 1]),
        RoundPlan(dealer=0, status=(IN, IN, DOG), tricks=[{1: "9C", 2: "2H", 0: "AC"}], trump=Suit.HEARTS),
    ]
    game = play_plans(plans, Rules(dog_life="any_round"))
    started = [e for e in game.events if isinstance(e, RoundStarted)]
    assert started[6] == RoundStarted(7, 0, 1, (IN, IN, DOG), None, 0)
    assert game.over and game.outcome is not None
    assert game.outcome.winner == 2
    assert game.outcome.knocked_out_round == (7, 7, None)


# --- W20: the trump request ---------------------------------------------------------------------


def test_w20_chooser_sees_new_hand_and_no_trump_yet() -> None:
    game = play_plans([RoundPlan(dealer=0, status=(IN,) * 4, winners=[1, 1, 1, 0, 2, 3, 0])])
    view = game.view(1)
    assert view.round_number == 2 and view.trump_chooser == 1
    assert view.decision is DecisionKind.CHOOSE_TRUMP
    assert len(view.hand) == 6 and view.hand == game.rounds[1].hands[1]
    assert view.trump is None and not view.no_trump and view.turn_up is None
    assert view.legal == tuple(ChooseTrump(s) for s in Suit)
    assert view.current_trick is None and view.completed_tricks == ()
    for other in (0, 2, 3):
        assert game.view(other).decision is None and game.view(other).legal == ()


# --- docs/design.md §3: a view holds its own hand and public facts only ------------------------------


def test_view_does_not_depend_on_other_seats_cards() -> None:
    deck = list(random.Random(3).sample(CARDS, 52))
    swapped = list(deck)
    swapped[1], swapped[2] = swapped[2], swapped[1]  # P1's and P2's first cards (dealer P3)
    views = [Game(4, Rules(), 0, first_dealer=3, decks={1: d}).view(0) for d in (deck, swapped)]
    assert views[0] == views[1]
    assert set(views[0].hand) == {deck[i] for i in range(0, 28, 4)}


# --- W22, W23, W25: required_tricks = "strict" (docs/rules.md §2) --------------------------------

STRICT_ANY = Rules(required_tricks="strict", dog_life="any_round")

# id, rules, start hand size, rounds as (dealer, status, trick winners, dog -> trick it plays),
# the last RoundEnded, each seat's status after it, the winner (None: the game goes on)
STRICT_WORKED = [
    (
        "W22",
        STRICT_ANY,
        4,
        [(0, (IN, IN), [0, 1, 0, 1], {}), (1, (IN, IN), [0, 0, 1], {})],
        RoundEnded(2, (2, 1), (1,), ()),
        (IN, OUT),
        0,
    ),
    (
        "W23",
        STRICT_ANY,
        7,
        [
            (0, (IN, IN, IN), [0, 1, 2, 0, 1, 2, 0], {}),
            (1, (IN, IN, IN), [0, 1, 0, 1, 0, 1], {}),
            (2, (IN, IN, DOG), [0, 1, 0, 1, 2], {2: 4}),
        ],
        RoundEnded(3, (2, 2, 1), (), ()),
        (IN, IN, IN),
        None,
    ),
    (
        "W23 with the quota met by nobody and no dog",
        Rules(required_tricks="strict"),
        7,
        [(0, (IN,) * 3, [0, 1, 2, 0, 1, 2, 0], {}), (1, (IN,) * 3, [0, 1, 2, 0, 1, 2], {}), (2, (IN,) * 3, [0, 1, 0, 1, 2], {})],
        RoundEnded(3, (2, 2, 1), (2,), ()),
        (IN, IN, OUT),
        None,
    ),
    (
        "W25",
        Rules(required_tricks="strict"),
        3,
        [(0, (IN,) * 4, [0, 1, 0], {}), (1, (IN, IN, DOG, DOG), [2, 3], {2: 0, 3: 1})],
        RoundEnded(2, (0, 0, 1, 1), (), ()),
        (IN, IN, IN, IN),
        None,
    ),
    (
        "W22 with no trick: the dog's life",
        STRICT_ANY,
        4,
        [(0, (IN, IN, IN), [0, 1, 2, 0], {}), (1, (IN, IN, IN), [0, 0, 1], {})],
        RoundEnded(2, (2, 1, 0), (1,), (2,)),
        (IN, OUT, DOG),
        None,
    ),
]


@pytest.mark.parametrize(
    "case, rules, hand, rounds, ended, status, winner", STRICT_WORKED, ids=[c[0] for c in STRICT_WORKED]
)
def test_strict_worked_cases(
    case: str,
    rules: Rules,
    hand: int,
    rounds: list[tuple[int, tuple[SeatStatus, ...], list[int], dict[int, int]]],
    ended: RoundEnded,
    status: tuple[SeatStatus, ...],
    winner: int | None,
) -> None:
    plans = [RoundPlan(dealer=d, status=st, winners=w, dog_tricks=dogs) for d, st, w, dogs in rounds]
    game = play_plans(plans, dataclasses.replace(rules, start_hand_size=hand))
    assert [e for e in game.events if isinstance(e, RoundEnded)][-1] == ended
    if winner is None:
        assert not game.over and game.view(0).status == status
    else:
        assert game.over and game.outcome is not None and game.outcome.winner == winner
        assert tuple(OUT if place > 1 else IN for place in game.outcome.placements) == status
