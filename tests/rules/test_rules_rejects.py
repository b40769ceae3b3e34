"""W19 and rules.md R15: illegal actions are rejected with a clear message, state unchanged."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from referee.errors import IllegalAction
from referee.game.cards import Suit
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Action, ChooseTrump, Pass, Play
from tests.rules.rules_helpers import DOG, IN, RoundPlan, build_deck, card, play_out, play_round, planned_game, snapshot

DOG_ROUND1 = RoundPlan(dealer=0, status=(IN,) * 4, winners=[0, 1, 2, 0, 1, 2, 0])  # P3 becomes a dog


def trick_game() -> Game:
    """Round 1 of a 2-card game, trump H, P0 to lead; P1 holds KC AS."""
    deck = build_deck(2, 3, {0: "7C 2D", 1: "KC AS", 2: "3C 4C"}, 2, turn_up="2H")
    return Game(3, Rules(start_hand_size=2), 1, first_dealer=2, decks={1: deck})


def after_lead() -> Game:
    game = trick_game()
    game.apply(0, Play(card("7C")))
    return game


def trump_game(rules: Rules | None = None) -> Game:
    """Round 2, P0 to name trump; P3 a dog."""
    game = planned_game([DOG_ROUND1], rules)
    play_round(game, DOG_ROUND1)
    return game


def dog_turn(rules: Rules | None = None, last: bool = False) -> Game:
    """Round 2, the dog P3 to act on trick 1 (or, with ``last``, on the last trick)."""
    plan = RoundPlan(dealer=1, status=(IN, IN, IN, DOG), winners=[2, 2, 2, 2, 2, 2], dog_tricks={3: 5 if last else 0})
    game = planned_game([DOG_ROUND1, plan], rules)
    play_round(game, DOG_ROUND1)
    play_round(game, plan, tricks=5 if last else 0)
    game.apply(2, Play(plan.planned_tricks()[5 if last else 0][2]))
    assert game.to_act == 3
    return game


def finished() -> Game:
    game = trick_game()
    play_out(game)
    return game


CASES: list[tuple[str, Callable[[], Game], int, Action, str]] = [
    ("card not held", trick_game, 0, Play(card("AS")), "seat 0 does not hold AS: holds 2D 7C"),
    ("out of turn", trick_game, 1, Play(card("KC")), "seat 1 acted out of turn: seat 0 is to play"),
    ("fails to follow suit", after_lead, 1, Play(card("AS")), "seat 1 must follow suit ♣: holds KC; played AS"),
    ("trump named in play", trick_game, 0, ChooseTrump(Suit.HEARTS), "seat 0 must play a card"),
    ("pass by a normal player", trick_game, 0, Pass(), "only a dog may pass"),
    ("non-chooser names trump", trump_game, 1, ChooseTrump(Suit.HEARTS), "seat 1 acted out of turn: seat 0 is to choose trump"),
    ("card instead of trump", trump_game, 0, Pass(), "seat 0 must choose trump"),
    ("no trump not allowed", trump_game, 0, ChooseTrump(None), "rules.allow_no_trump is false"),
    ("dog passes on the last trick", lambda: dog_turn(last=True), 3, Pass(), "may not pass on the last trick"),
    ("dog passes under first_trick", lambda: dog_turn(Rules(dog_play="first_trick")), 3, Pass(), "dog_play = first_trick"),
    ("action when the game is over", finished, 0, Play(card("7C")), "the game is over"),
]


@pytest.mark.parametrize("name, make, seat, action, message", CASES, ids=[c[0] for c in CASES])
def test_rejected_action_leaves_state_unchanged(
    name: str, make: Callable[[], Game], seat: int, action: Action, message: str
) -> None:
    game = make()
    before = snapshot(game)
    with pytest.raises(IllegalAction) as error:
        game.apply(seat, action)
    assert message in str(error.value)
    assert snapshot(game) == before
    if seat == game.to_act:
        assert action not in game.legal_actions()


def test_dog_under_first_trick_must_play_its_card() -> None:
    game = dog_turn(Rules(dog_play="first_trick"))
    assert game.legal_actions() == (Play(game.view(3).hand[0]),)


def test_play_continues_after_a_rejection() -> None:
    game = after_lead()
    with pytest.raises(IllegalAction):
        game.apply(1, Play(card("AS")))
    game.apply(1, Play(card("KC")))
    game.apply(2, Play(card("3C")))
    assert game.to_act == 1


def test_view_of_a_seat_that_does_not_exist() -> None:
    with pytest.raises(ValueError):
        trick_game().view(3)
