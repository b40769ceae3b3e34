"""The table page's model (:mod:`referee.web.tableview`): what a person's page is sent is
built from their seat's view and the public events alone, and says what happened in the
game's words."""

from __future__ import annotations

import doctest
import json
import re

import referee.web.tableview
from referee.game.cards import parse_card
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import (
    CardPlayed,
    CardRevealed,
    Play,
    RoundEnded,
    RoundStarted,
    SeatStatus,
    TrickWon,
    TrumpChosen,
    fallback_action,
)
from referee.web.tableview import Asked, table_state

CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")
NAMES = ("you", "heuristic", "random")


def test_the_examples_in_the_model_run() -> None:
    assert doctest.testmod(referee.web.tableview).failed == 0


def test_a_seat_is_sent_its_hand_sorted_by_suit_and_the_legal_moves_only_when_asked() -> None:
    game = Game(3, Rules(), seed=2)
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    waiting = table_state(NAMES, view, game.events)
    asked = table_state(NAMES, view, game.events, Asked(7, move_ms=30_000))
    assert waiting["ask"] is None, "no move offered before the referee asks"
    assert asked["ask"] == {
        "number": 7, "kind": "play", "cards": [str(action.card) for action in view.legal if isinstance(action, Play)],
        "pass": False, "suits": [], "move_ms": 30_000, "bank_ms": 0,
    }  # fmt: skip
    suits = [card[-1] for card in asked["hand"]]
    order = "SHCD"
    assert suits == sorted(suits, key=order.index), "♠ ♥ ♣ ♦: red and black alternate"
    assert sorted(asked["hand"]) == sorted(str(card) for card in view.hand)
    assert asked["turn_up"] == str(view.turn_up) and asked["trump"] == view.trump.letter and asked["trump_by"] is None  # type: ignore[union-attr]
    assert asked["to_play"] == seat and asked["seen"] == len(game.events)


def test_no_card_of_another_seat_in_the_state_at_any_moment_of_a_whole_game() -> None:
    """Every state of seat 0 during a game, as JSON: each card in it is its own, the turn-up
    or one already played face up (docs/design.md §3)."""
    for dog_play in ("choose_trick", "first_trick"):
        game = Game(3, Rules(dog_play=dog_play, start_hand_size=3), seed=11)  # type: ignore[arg-type]
        seen_face_down = False
        while not game.over:
            view = game.view(0)
            text = json.dumps(table_state(NAMES, view, game.events))
            allowed = {str(card) for card in view.hand}
            if view.current_trick is not None:  # its own face-down card, which its view holds
                allowed |= {str(play.card) for play in view.current_trick.plays if play.seat == 0 and play.card is not None}
            for event in game.events:
                if isinstance(event, RoundStarted) and event.turn_up is not None:
                    allowed.add(str(event.turn_up))
                if isinstance(event, (CardPlayed, CardRevealed)) and event.card is not None:
                    allowed.add(str(event.card))
            assert set(CARD.findall(text)) <= allowed, (set(CARD.findall(text)) - allowed, text)
            seen_face_down |= '"face_down": true' in text and view.status[0] is not SeatStatus.DOG
            seat = game.to_act
            assert seat is not None
            game.apply(seat, fallback_action(game.view(seat)))
        assert seen_face_down == (dog_play == "first_trick"), "the seed gives a dog a face-down card another seat sees"


def test_a_dogs_face_down_card_is_hidden_from_the_others_until_the_trick_is_complete() -> None:
    game = Game(3, Rules(dog_play="first_trick", start_hand_size=3), seed=11)
    while not game.over:
        seat = game.to_act
        assert seat is not None
        before = {other: table_state(NAMES, game.view(other), game.events) for other in range(3)}
        game.apply(seat, fallback_action(game.view(seat)))
        if game.events and isinstance(game.events[-1], CardPlayed) and game.events[-1].face_down:
            card = None
            for other in range(3):
                state = table_state(NAMES, game.view(other), game.events)
                play = next(play for play in state["trick"]["plays"] if play["seat"] == seat)
                assert play["face_down"] is True
                if other == seat:
                    card = play["card"]
                    assert card in before[seat]["hand"], "the dog sees its own card"
                else:
                    assert "card" not in play, "the others see that the dog played, not the card"
                    assert "face down" in " ".join(state["lines"])
            assert card is not None
            for other in range(3):
                assert card not in json.dumps(table_state(NAMES, game.view(other), game.events)) or other == seat
            return
    raise AssertionError("no dog played face down in this game")


def test_the_lines_tell_each_play_and_the_round_end_says_who_is_out_and_why() -> None:
    events = [
        RoundStarted(2, dealer=1, hand_size=6, status=(SeatStatus.IN, SeatStatus.IN, SeatStatus.DOG), turn_up=None, trump_chooser=1),
        TrumpChosen(1, parse_card("KS").suit),
        CardPlayed(1, parse_card("KS")),
        CardPlayed(2, None, face_down=True),
        CardPlayed(0, parse_card("2S")),
        TrickWon(1, 1),
        RoundEnded(2, tricks_won=(0, 6, 0), knocked_out=(0, 2), dogs=()),
    ]
    game = Game(3, Rules(), seed=2)
    state = table_state(NAMES, game.view(0), events)
    lines = state["lines"]
    assert "heuristic named trump {S}" in lines
    assert "heuristic led {KS}" in lines and "You played {2S}" in lines
    assert "random (the dog) played a card face down" in lines
    assert "heuristic won trick 1" in lines
    assert state["trump_by"] == 1
    assert state["last_trick"]["plays"][1] == {"seat": 2, "face_down": True} and state["last_trick"]["winner"] == 1
    assert state["round_end"]["lines"] == ["You are knocked out: took no trick", "random is knocked out: the dog took no trick"]
