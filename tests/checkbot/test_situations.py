"""The scripted situations of ``referee check-bot`` are exact: each asks the intended
question with the intended legal set (rules.md R8, R11, R12, R18, R3)."""

from __future__ import annotations

import json

import pytest

from referee.checkbot.describe import action_text, describe_request, legal_answers
from referee.checkbot.situations import Situation, build_situations, finish, stack_deck
from referee.game.cards import parse_card, parse_cards
from referee.game.dealing import deal
from referee.game.views import DecisionKind, Pass, SeatStatus, format_action
from referee.transport import codec

IN, DOG = SeatStatus.IN, SeatStatus.DOG
SITUATIONS = {situation.key: situation for situation in build_situations()}


def legal(situation: Situation) -> list[str]:
    return [format_action(action) for action in situation.view.legal]


@pytest.mark.parametrize(
    ("key", "decision", "round_number", "trick", "hand", "expected"),
    [
        ("lead", DecisionKind.PLAY, 1, 1, "7C AS KS 2D 5D 9H 3S", "3S KS AS 9H 2D 5D 7C"),
        ("follow-suit", DecisionKind.PLAY, 1, 1, "KC 3C 4S 6D TD JH 8S", "3C KC"),
        ("void", DecisionKind.PLAY, 1, 1, "AD KD QD JD 2H 3H 4H", "2H 3H 4H JD QD KD AD"),
        ("name-trump", DecisionKind.CHOOSE_TRUMP, 2, 1, "AS KS QS 2D 3D 4D", "trump S trump H trump D trump C"),
        ("dog-choice", DecisionKind.PLAY, 2, 1, "5C", "5C pass"),
        ("dog-last-trick", DecisionKind.PLAY, 2, 6, "5C", "5C"),
        ("dog-leads", DecisionKind.PLAY, 2, 1, "5C", "5C pass"),
        ("dog-after-pass", DecisionKind.PLAY, 2, 1, "6C", "6C pass"),
        ("final-round-dog", DecisionKind.PLAY, 7, 1, "5C", "5C"),
        ("final-round", DecisionKind.PLAY, 7, 1, "AD", "AD"),
    ],
)
def test_each_situation_asks_the_intended_question(
    key: str, decision: DecisionKind, round_number: int, trick: int, hand: str, expected: str
) -> None:
    situation = SITUATIONS[key]
    view = situation.view
    assert view.decision is decision
    assert (view.round_number, view.trick_number) == (round_number, trick)
    assert sorted(view.hand) == sorted(parse_cards(hand))
    assert " ".join(legal(situation)) == expected
    assert situation.game.to_act == view.seat
    assert view.game_id == f"check-{key}", "each situation is a game of its own"


def test_the_led_suit_and_the_dog_are_as_scripted() -> None:
    assert SITUATIONS["follow-suit"].view.led_suit == parse_card("7C").suit
    assert SITUATIONS["void"].view.led_suit == parse_card("7C").suit
    for key in ("dog-choice", "dog-last-trick"):
        view = SITUATIONS[key].view
        assert view.status == (IN, IN, DOG) and view.seat == 2
    assert Pass() in SITUATIONS["dog-choice"].view.legal and Pass() not in SITUATIONS["dog-last-trick"].view.legal
    leads = SITUATIONS["dog-leads"].view
    assert leads.status == (IN, DOG, IN) and leads.seat == 1 and leads.current_trick is not None and not leads.current_trick.plays
    assert leads.to_play[0] == 1, "the dog is the seat due to lead"
    after = SITUATIONS["dog-after-pass"].view
    assert after.status == (IN, IN, DOG, DOG) and after.seat == 3
    assert after.current_trick is not None and [(p.seat, p.card) for p in after.current_trick.plays] == [(1, parse_card("AD")), (2, None)]
    last = SITUATIONS["final-round-dog"].view
    assert last.rules.dog_life == "any_round" and last.rules.start_hand_size == 7
    assert last.round_number == 7 and last.status == (DOG, DOG, IN) and last.seat == 0, "the last round, two dogs, one leads"
    assert Pass() not in last.legal, "the last round's one trick is the dog's last"
    final = SITUATIONS["final-round"].view
    assert final.hand_size == 1 and final.current_trick is not None and len(final.current_trick.plays) == 1


def test_situations_are_built_afresh_and_the_final_game_ends() -> None:
    first, second = build_situations(), build_situations()
    assert all(a.game is not b.game for a, b in zip(first, second))
    game = finish(first[-1])
    assert game.over and game.outcome is not None and game.outcome.winner is not None


def test_stack_deck_deals_the_given_hands_and_refuses_a_misfit() -> None:
    hands = {0: parse_cards("AS 2D 3D"), 1: parse_cards("AD 2S 3S"), 2: parse_cards("5C")}
    deck = stack_deck(hands, dealer=0, status=(IN, IN, DOG), turn_up=parse_card("2H"))
    dealt, count = deal(deck, 0, (IN, IN, DOG), 3)
    assert [sorted(hand) for hand in dealt] == [sorted(hands[seat]) for seat in range(3)]
    assert deck[count] == parse_card("2H") and sorted(deck) == sorted(set(deck)) and len(deck) == 52
    with pytest.raises(ValueError):
        stack_deck({0: parse_cards("AS 2D"), 1: parse_cards("AD")}, dealer=1, status=(IN, IN))


def test_describe_request_says_what_was_asked() -> None:
    situation = SITUATIONS["follow-suit"]
    request = codec.view_to_request(situation.view, situation.events, situation.decision_number, 1000, 250)
    text = codec.request_json(request)
    line = describe_request(text)
    assert "asked to play a card as seat 1 in round 1 (7 cards)" in line
    assert "trick 1 of 7" in line and "trump S" in line and "trick so far: seat 0 7C" in line
    assert "hand 4S 8S JH 6D TD 3C KC" in line and "time left 1000 ms, bank 250 ms" in line
    assert legal_answers(text) == ["3C", "KC"]
    dog = SITUATIONS["dog-choice"]
    dog_text = codec.request_json(codec.view_to_request(dog.view, dog.events, dog.decision_number, 0, 0))
    assert "on the dog's life" in describe_request(dog_text) and "no time limit" in describe_request(dog_text)
    assert legal_answers(dog_text) == ["5C", "pass"]
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
