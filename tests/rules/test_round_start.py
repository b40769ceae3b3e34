"""A game taken up at the start of a later round (``RoundStart``, for a bot's look-ahead):
the round is dealt and played under the same rules, and a start no game could reach is
refused in one line."""

from __future__ import annotations

import pytest

from referee.errors import ConfigError
from referee.game.engine import Game, RoundStart
from referee.game.rules import Rules
from referee.game.views import DecisionKind
from tests.rules.rules_helpers import DOG, IN, OUT


def test_a_later_round_is_dealt_and_played_to_the_end() -> None:
    start = RoundStart(round_number=4, dealer=3, status=(IN, OUT, DOG, IN), trump_chooser=0, dog_life_used=True,
                       knocked_out_round=(None, 2, None, None))  # fmt: skip
    game = Game(4, Rules(), seed=9, start=start)
    assert (game.round_number, game.to_act, game.decision()) == (4, 0, DecisionKind.CHOOSE_TRUMP)
    assert [len(game.view(seat).hand) for seat in range(4)] == [4, 0, 1, 4]  # R3: 8 - 4 cards; a dog one
    while not game.over:
        assert game.to_act is not None
        game.apply(game.to_act, game.legal_actions()[0])
    assert game.outcome is not None
    assert game.outcome.knocked_out_round[1] == 2 and game.outcome.placements[1] == 4  # out first: last


@pytest.mark.parametrize(
    "start, words",
    [
        (RoundStart(2, 0, (IN, IN), 0, False), "3 seats"),
        (RoundStart(2, 0, (IN, OUT, OUT), 0, False), "fewer than two"),
        (RoundStart(0, 0, (IN, IN, IN), None, False), "numbered from 1"),
        (RoundStart(2, 1, (IN, OUT, IN), 0, False), "dealer 1"),
        (RoundStart(1, 0, (IN, IN, IN), 2, False), "no trump chooser"),
        (RoundStart(2, 0, (IN, IN, IN), None, False), "needs a trump chooser"),
        (RoundStart(2, 0, (IN, OUT, IN), 1, False), "needs a trump chooser"),
        (RoundStart(2, 0, (IN, OUT, IN), 0, False, (None, None, None)), "knocked_out_round"),
    ],
)
def test_a_start_no_game_could_reach_is_refused(start: RoundStart, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        Game(3, Rules(), seed=1, start=start)
