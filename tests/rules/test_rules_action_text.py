"""Record text forms of actions (records.ActionRecord.action): parse_action / format_action."""

from __future__ import annotations

import pytest

from referee.errors import ConfigError
from referee.game.cards import CARDS, Suit
from referee.game.views import Action, ChooseTrump, Pass, Play, format_action, parse_action
from tests.rules.rules_helpers import card

ALL_ACTIONS: list[Action] = [*(Play(c) for c in CARDS), *(ChooseTrump(s) for s in Suit), ChooseTrump(None), Pass()]


@pytest.mark.parametrize(
    "text, action",
    [("AS", Play(card("AS"))), ("td", Play(card("TD"))), ("trump H", ChooseTrump(Suit.HEARTS)),
     ("TRUMP nt", ChooseTrump(None)), ("pass", Pass()), (" Pass ", Pass())],
)
def test_parse(text: str, action: Action) -> None:
    assert parse_action(text) == action


def test_round_trip() -> None:
    for action in ALL_ACTIONS:
        assert parse_action(format_action(action)) == action
    assert [format_action(a) for a in (Play(card("7C")), ChooseTrump(Suit.DIAMONDS), ChooseTrump(None), Pass())] == [
        "7C", "trump D", "trump NT", "pass"]


@pytest.mark.parametrize("text", ["", "AX", "trump", "trump X", "trump hearts x", "pass AS", "1S"])
def test_bad_text(text: str) -> None:
    with pytest.raises(ConfigError, match="bad action"):
        parse_action(text)
