"""Forfeits (docs/design.md §5): knocked out at the round's end, placed below play knock-outs."""

from __future__ import annotations

import pytest

from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import RoundEnded, RoundStarted
from tests.rules.rules_helpers import DOG, IN, OUT, RoundPlan, play_out, play_round, planned_game, snapshot

FOUR = (IN,) * 4


def last_round_ended(game: Game) -> RoundEnded:
    return [e for e in game.events if isinstance(e, RoundEnded)][-1]


def test_forfeiter_placed_below_play_knock_outs_of_its_round() -> None:
    plan = RoundPlan(dealer=0, status=FOUR, winners=[0, 1, 2, 0, 1, 2, 0])  # P3 takes no trick
    game = planned_game([plan], Rules(dog_life="off"))
    game.forfeit(0)
    play_round(game, plan)  # the forfeiter still acts and wins tricks
    assert last_round_ended(game) == RoundEnded(1, (3, 2, 2, 0), (0, 3), (), (0,))
    assert game.rounds[0].forfeited == (0,) and game.rounds[0].knocked_out == (0, 3)
    assert game.view(1).status == (OUT, IN, IN, OUT)
    play_out(game)
    assert game.outcome is not None
    assert game.outcome.placements[3] == 3 and game.outcome.placements[0] == 4
    assert game.outcome.knocked_out_round[0] == game.outcome.knocked_out_round[3] == 1
    assert game.outcome.forfeited == (True, False, False, False)


def test_forfeiter_taking_every_trick_leaves_the_rest_in_as_normal_players() -> None:
    plan = RoundPlan(dealer=0, status=(IN, IN, IN), winners=[0] * 7)
    game = planned_game([plan])
    game.forfeit(0)
    play_round(game, plan)
    assert last_round_ended(game) == RoundEnded(1, (7, 0, 0), (0,), (), (0,))
    assert game.view(1).status == (OUT, IN, IN) and not game.view(1).dog_life_used


def test_two_players_one_forfeits_the_other_wins() -> None:
    plan = RoundPlan(dealer=0, status=(IN, IN), winners=[0] * 7)
    game = planned_game([plan])
    game.forfeit(0)
    play_round(game, plan)
    assert game.over and game.outcome is not None
    assert game.outcome.winner == 1 and game.outcome.placements == (2, 1)


def test_everyone_forfeits_share_the_place() -> None:
    plan = RoundPlan(dealer=0, status=(IN, IN, IN), winners=[0, 1, 2, 0, 1, 2, 0])
    game = planned_game([plan], Rules(dog_life="off"))
    game.forfeit(1)
    game.forfeit(2)
    game.forfeit(0)
    play_round(game, plan)
    assert game.over and game.outcome is not None
    assert game.outcome.winner is None
    assert game.outcome.placements == (1, 1, 1)
    assert game.outcome.knocked_out_round == (1, 1, 1)
    assert game.outcome.forfeited == (True, True, True)


def test_forfeit_of_a_seat_already_out_or_after_the_game_is_a_no_op() -> None:
    plan = RoundPlan(dealer=0, status=FOUR, winners=[0, 1, 2, 0, 1, 2, 0])
    game = planned_game([plan], Rules(dog_life="off"))
    play_round(game, plan)
    before = snapshot(game)
    game.forfeit(3)
    assert snapshot(game) == before
    play_out(game)
    before = snapshot(game)
    game.forfeit(0)
    assert snapshot(game) == before
    with pytest.raises(ValueError):
        game.forfeit(4)


def test_forfeit_changes_nothing_visible_during_the_round() -> None:
    game = Game(4, Rules(), 5, first_dealer=0)
    before = snapshot(game)
    game.forfeit(2)
    assert snapshot(game)[:2] == before[:2] and game.legal_actions() == before[6]


def test_forfeiting_dog_cannot_come_back() -> None:
    round1 = RoundPlan(dealer=0, status=FOUR, winners=[0, 1, 2, 0, 1, 2, 0])
    round2 = RoundPlan(dealer=1, status=(IN, IN, IN, DOG), winners=[0, 1, 2, 3, 0, 1], dog_tricks={3: 3})
    game = planned_game([round1, round2])
    play_round(game, round1)
    game.forfeit(3)
    play_round(game, round2)
    assert last_round_ended(game) == RoundEnded(2, (2, 2, 1, 1), (3,), (), (3,))


@pytest.mark.parametrize("required", ["one", "strict"])
def test_tiebreak_deal_after_the_last_round(required: str) -> None:
    """The forfeiter takes the last round's only trick: the others (0 tricks each) are tied
    and play a one-card tiebreak deal, trump named by the previous chooser (rules.md §2)."""
    round1 = RoundPlan(dealer=3, status=FOUR, winners=[0, 1])  # P2, P3 become dogs
    round2 = RoundPlan(dealer=0, status=(IN, IN, DOG, DOG), winners=[1])  # P0 chooses; P1 leads
    round3 = RoundPlan(dealer=2, status=(IN, OUT, IN, IN), winners=[3])
    rules = Rules(start_hand_size=2, required_tricks=required)  # type: ignore[arg-type]
    game = planned_game([round1, round2, round3], rules)
    play_round(game, round1)
    assert game.to_act == 0  # tied 1-1: first left of dealer P3
    game.forfeit(1)
    play_round(game, round2)
    assert last_round_ended(game) == RoundEnded(2, (0, 1, 0, 0), (1,), (), (1,))
    assert game.events[-1] == RoundStarted(3, 2, 1, (IN, OUT, IN, IN), None, 0)
    assert game.to_act == 0
    play_round(game, round3)
    assert game.over and game.outcome is not None
    assert game.outcome.winner == 3
    assert game.outcome.knocked_out_round == (3, 2, 3, None)
    assert game.outcome.placements == (2, 4, 2, 1)
    assert game.outcome.forfeited == (False, True, False, False)


def test_tiebreak_chooser_falls_back_to_r9_when_the_previous_chooser_is_out() -> None:
    round1 = RoundPlan(dealer=2, status=(IN, IN, IN), winners=[0])  # one-card game
    round2 = RoundPlan(dealer=1, status=(OUT, IN, IN), winners=[2])
    game = planned_game([round1, round2], Rules(start_hand_size=1))
    game.forfeit(0)
    play_round(game, round1)
    assert game.events[-1] == RoundStarted(2, 1, 1, (OUT, IN, IN), None, 1)
    play_round(game, round2)
    assert game.outcome is not None and game.outcome.placements == (3, 2, 1)
