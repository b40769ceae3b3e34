"""check-bot's situations come from the engine itself (issue 37): seeded games under every
rule variant not pinned, until each branch of the rules has been asked; each situation is
a real decision of a real game, asked as a game of its own, the same on every run."""

from __future__ import annotations

import json

import pytest

from referee.checkbot.describe import action_text, describe_request, legal_answers
from referee.checkbot.situations import BRANCHES, build_situations, finish, rule_sets, variant_values
from referee.game.engine import replay
from referee.game.rules import Rules
from referee.game.views import ChooseTrump, DecisionKind, Pass, SeatStatus, SeatView
from referee.transport import codec

COVERAGE = build_situations()
BY_BRANCH = {key: situation for situation in COVERAGE.situations for key in situation.branches}


def view_of(branch: str) -> SeatView:
    return BY_BRANCH[branch].view


def test_each_situation_is_a_decision_of_its_branches_asked_as_a_game_of_its_own() -> None:
    assert not COVERAGE.missed and not COVERAGE.impossible
    branches = {branch.key: branch for branch in BRANCHES}
    ids = [situation.view.game_id for situation in COVERAGE.situations]
    assert len(set(ids)) == len(ids) and all(game_id == f"check-{s.key}" for game_id, s in zip(ids, COVERAGE.situations))
    for situation in COVERAGE.situations:
        view = situation.view
        assert situation.game.to_act == view.seat and view.decision is not None and view.legal
        for key in situation.branches:
            assert branches[key].holds(view, situation.events), (key, situation.title)
        again = replay(view.num_seats, view.rules, situation.game.seed, situation.game.first_dealer, None, (), view.game_id)
        assert again.rounds[0].deck == situation.game.rounds[0].deck, "a seeded game of the engine"
    order = [situation.key for situation in COVERAGE.situations]
    assert order == [branch.key for branch in BRANCHES if branch.key in order], "asked in the order of the list"


def test_the_issues_branch_a_dog_leads_passes_and_a_normal_player_leads_after_it() -> None:
    view = BY_BRANCH["lead-after-pass"].view
    assert view.current_trick is not None and view.current_trick.plays
    assert all(play.card is None and view.status[play.seat] is SeatStatus.DOG for play in view.current_trick.plays)
    assert view.status[view.seat] is SeatStatus.IN and view.led_suit is None
    assert len(view.legal) == len(view.hand), "any card may be led"


def test_the_variants_bring_their_own_branches() -> None:
    assert ChooseTrump(None) in view_of("no-trump-offered").legal
    assert view_of("no-trump-round").no_trump
    face_down = view_of("lead-after-face-down")
    assert face_down.rules.dog_play == "first_trick" and face_down.led_suit is None
    assert Pass() not in view_of("dog-first-trick").legal
    assert view_of("tiebreak-deal").round_number > view_of("tiebreak-deal").rules.start_hand_size
    assert view_of("dog-last-round").rules.dog_life == "any_round"
    assert view_of("one-round-game").rules.start_hand_size == 1
    assert {view_of(key).num_seats for key in ("two-seats", "seven-seats")} == {2, 7}


def test_the_situations_are_the_same_on_every_run_and_built_afresh() -> None:
    again = build_situations()
    assert [s.view for s in again.situations] == [s.view for s in COVERAGE.situations]
    assert [s.events for s in again.situations] == [s.events for s in COVERAGE.situations]
    assert all(a.game is not b.game for a, b in zip(again.situations, COVERAGE.situations))
    game = finish(again.situations[-1])
    assert game.over and game.outcome is not None


def test_the_rule_sets_vary_each_variant_not_pinned_one_at_a_time() -> None:
    values = variant_values()
    assert values["dog_life"] == ("round1", "any_round", "off") and values["allow_no_trump"] == (False, True)
    assert values["start_hand_size"] == (7, 6, 5, 4, 3, 2, 1)
    plans = rule_sets(Rules())
    assert plans[0] == Rules()
    single = [plan for plan in plans[1:] if len(plan.differences()) == 1]
    assert len(single) == sum(len(v) - 1 for v in values.values())
    assert Rules(required_tricks="strict", start_hand_size=2) in plans, "the variants a branch needs together"
    pinned = rule_sets(Rules(dog_life="off"), {"dog_life"})
    assert all(plan.dog_life == "off" for plan in pinned)


@pytest.mark.parametrize("pins", [{"dog_life": "off"}, {"dog_play": "first_trick", "allow_no_trump": True}, {"start_hand_size": 3}])
def test_pinned_variants_hold_in_every_situation_and_what_they_rule_out_is_named(pins: dict[str, object]) -> None:
    coverage = build_situations(Rules.from_dict({**Rules().as_dict(), **pins}), pins)
    assert not coverage.missed
    for situation in coverage.situations:
        assert all(getattr(situation.view.rules, key) == value for key, value in pins.items())
    assert sorted(coverage.covered + coverage.impossible) == sorted(branch.key for branch in BRANCHES)
    if pins.get("dog_life") == "off":
        assert "dog-leads" in coverage.impossible and "lead-after-pass" in coverage.impossible


def test_describe_request_says_what_was_asked() -> None:
    situation = BY_BRANCH["follow-suit"]
    view = situation.view
    request = codec.view_to_request(view, situation.events, situation.decision_number, 1000, 250)
    text = codec.request_json(request)
    line = describe_request(text)
    assert f"asked to play a card as seat {view.seat} in round {view.round_number} ({view.hand_size} cards)" in line
    assert f"trick {view.trick_number} of {view.hand_size}" in line and "time left 1000 ms, bank 250 ms" in line
    assert legal_answers(text) == [str(action) for action in view.legal]
    dog = BY_BRANCH["dog-follows"]
    dog_text = codec.request_json(codec.view_to_request(dog.view, dog.events, dog.decision_number, 0, 0))
    assert "on the dog's life" in describe_request(dog_text) and "no time limit" in describe_request(dog_text)
    assert legal_answers(dog_text)[-1] == "pass"
    trump = BY_BRANCH["name-trump"]
    assert trump.view.decision is DecisionKind.CHOOSE_TRUMP
    assert describe_request("") == "(no request)" and describe_request("{not json") == "(no request)"
    assert legal_answers("") == []
    assert action_text(json.loads('{"choose_trump":{"no_trump":true}}')) == "trump NT"
    assert action_text({"play": {"rank": "TEN", "suit": "HEARTS"}}) == "TH" and action_text(3) == "an unreadable action"
    hello = '{"protocol_major":1,"protocol_minor":0,"referee_version":"0.1.0"}'
    assert describe_request(hello) == "Hello (protocol 1.0, referee 0.1.0)", "a fault at start-up was asked Hello"
    assert "?" not in describe_request('{"decision":"PLAY_CARD","view":{"seat":2}}'), "an unreadable field is left out"


def test_a_hello_over_startup_ms_passes_saying_what_it_is() -> None:
    from referee.checkbot.checks import hello_summary

    assert hello_summary(812.4, 10_000) == "answered in 812 ms"
    over = hello_summary(15_433, 10_000)
    assert over.startswith("answered in 15,433 ms, over startup_ms (10,000 ms): accepted because") and "start faster" in over


def test_the_slowest_answer_past_half_the_limit_passes_with_a_warning() -> None:
    from referee.checkbot.checks import on_time_result
    from referee.game.timecontrol import TimeControl

    time = TimeControl(move_ms=1100, grace_ms=100)
    assert on_time_result(300.0, "lead", time).status == "pass"
    near = on_time_result(724.0, "void", time)
    assert near.status == "warn" and near.passed
    assert "slowest answer 724.0 ms (void)" in near.summary and "66% of the limit, over half of it" in near.summary
