"""Where the docs could disagree with the code (issue 28, item 14), the code's behaviour and
the docs' words, side by side: the dog's face-down ``CardPlayed`` carries no card to anyone,
``round_number`` runs past the last round in a tiebreak deal, W22 and W23 name the rules
they hold under, and under ``strict`` normal players with no trick survive when dogs take
every trick."""

from __future__ import annotations

import re

import pytest
from tests.conftest import REPO
from tests.rules.rules_helpers import DOG, IN, OUT, RoundPlan, build_deck, card, planned_game, play_round

from referee.game.engine import Game
from referee.game.round_end import resolve_round
from referee.game.rules import Rules
from referee.game.views import CardPlayed, ChooseTrump, Play
from referee.game.cards import Suit
from referee.transport import codec

PROTOCOL = (REPO / "docs" / "protocol.md").read_text()
PROTO = (REPO / "protos" / "knockout_whist" / "v1" / "bot.proto").read_text()
RULES = (REPO / "docs" / "rules.md").read_text()


def test_a_face_down_card_reaches_every_seat_without_its_card_the_dogs_own_included() -> None:
    """W24: the dog P1 commits AH face down; its next request (round 3, back in play) carries
    that CardPlayed with face_down and no card, as every other seat's does."""
    round1 = RoundPlan(dealer=0, status=(IN,) * 3, winners=[0, 2, 0, 2, 0, 2, 0])  # P1 takes no trick: a dog
    round2 = build_deck(1, 3, {0: "9H", 1: "AH", 2: "2H"}, 6, status=(IN, DOG, IN))
    game = Game(3, Rules(dog_play="first_trick", first_lead="trump_chooser"), 0, first_dealer=0, decks={1: round1.deck(), 2: round2})
    play_round(game, round1)
    game.apply(0, ChooseTrump(Suit.SPADES))
    game.apply(0, Play(card("9H")))
    since = len(game.events)
    game.apply(1, Play(card("AH")))
    assert game.events[since] == CardPlayed(1, None, face_down=True), "one public event for every seat"
    while game.to_act != 1:  # play on to the dog's next request
        assert game.to_act is not None
        game.apply(game.to_act, game.legal_actions()[0])
    view = game.view(1)
    request = codec.view_to_request(view, game.events[since:], 0, 1000, 0)
    played = [event.card_played for event in request.events if event.HasField("card_played")]
    assert played[0].seat == 1 and played[0].face_down and not played[0].HasField("card")
    assert "`card` unset for every seat, the dog's own included" in PROTOCOL
    assert "card then unset for every seat but the dog's" not in PROTOCOL


@pytest.mark.parametrize("required", ["one", "strict"])
def test_round_number_runs_past_the_last_round_in_a_tiebreak_deal(required: str) -> None:
    """A forfeiting seat takes the last round's only trick; the others, tied at no trick,
    play a one-card tiebreak deal: round 3 of a game whose last round is 2."""
    round1 = RoundPlan(dealer=3, status=(IN,) * 4, winners=[0, 1])
    round2 = RoundPlan(dealer=0, status=(IN, IN, DOG, DOG), winners=[1])
    rules = Rules(start_hand_size=2, required_tricks=required)  # type: ignore[arg-type]
    game = planned_game([round1, round2, RoundPlan(dealer=2, status=(IN, OUT, IN, IN), winners=[3])], rules)
    play_round(game, round1)
    game.forfeit(1)
    play_round(game, round2)
    seat = game.to_act
    assert seat is not None
    request = codec.view_to_request(game.view(seat), game.events, 0, 1000, 0)
    assert request.view.round_number == 3 > request.view.rules.start_hand_size
    for text in (PROTOCOL, PROTO):
        assert "1..7" not in text, "round_number is not bounded by 7"
    assert "tiebreak deal" in re.search(r"round_number.*", PROTO).group(0)  # type: ignore[union-attr]


def worked_case(number: str) -> str:
    row = next(line for line in RULES.splitlines() if line.startswith(f"| {number} |"))
    return row


def test_w22_and_w23_name_the_rules_they_hold_under() -> None:
    """tests/rules/test_rules_worked_cases.py plays them under exactly these rules."""
    assert 'start_hand_size = 4' in worked_case("W22") and 'dog_life = "any_round"' in worked_case("W22")
    assert 'dog_life = "any_round"' in worked_case("W23")


def test_under_strict_normal_players_with_no_trick_survive_when_dogs_take_every_trick() -> None:
    """Round 2 of a 4-player game with two dogs, dealt 2 cards (start_hand_size = 3): each
    dog takes a trick, the normal players none."""
    result = resolve_round((IN, IN, DOG, DOG), (0, 0, 1, 1), forfeits=(), required=2, dog_life=False, strict=True)
    assert result.survivors == (0, 1, 2, 3) and result.knocked_out == ()
    one = resolve_round((IN, IN, DOG, DOG), (0, 0, 1, 1), forfeits=(), required=1, dog_life=False, strict=False)
    assert one.survivors == (2, 3) and one.knocked_out == (0, 1), "with the default rules they are knocked out"
    assert "W25" in RULES and "dogs take every trick" in worked_case("W25")
