"""Deal files (issue 3 §4): the documented format parses, round-trips through
format_deal, and every malformed file is refused with one line naming the key or card."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import ConfigError
from referee.game.cards import CARDS, parse_cards
from referee.results.dealfile import Deal, format_deal, parse_deal, read_deal
from tests.replay.helpers import error_line, referee

DECK = " ".join(str(card) for card in CARDS)
SHUFFLED = " ".join(str(card) for card in random.Random(5).sample(CARDS, 52))


def test_the_documented_example_parses() -> None:
    text = f'first_dealer = 2\nseed = 99\n[rounds]\n1 = "{SHUFFLED}"\n3 = {list(DECK.split())!r}\n'.replace("'", '"')
    deal = parse_deal(text, "hand.toml")
    assert deal.first_dealer == 2 and deal.seed == 99
    assert sorted(deal.decks) == [1, 3]
    assert deal.decks[1] == parse_cards(SHUFFLED)
    assert deal.decks[3] == CARDS


def test_commas_newlines_and_lower_case_are_accepted() -> None:
    text = '[rounds]\n2 = """\n' + ",\n".join(SHUFFLED.lower().split()) + '\n"""\n'
    assert parse_deal(text).decks == {2: parse_cards(SHUFFLED)}


def test_json_holds_the_same_keys(tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(f'{{"first_dealer": 1, "rounds": {{"1": "{SHUFFLED}"}}}}')
    deal = read_deal(path)
    assert deal.first_dealer == 1 and deal.decks == {1: parse_cards(SHUFFLED)} and deal.seed is None


@settings(max_examples=50, deadline=None)
@given(
    st.one_of(st.none(), st.integers(0, 6)),
    st.one_of(st.none(), st.integers(0, 2**64 - 1)),
    st.dictionaries(st.integers(1, 12), st.permutations(CARDS), min_size=1, max_size=4),
    st.booleans(),
)
def test_format_then_parse_gives_the_same_deal(first_dealer: int | None, seed: int | None, decks: dict, as_json: bool) -> None:
    deal = Deal(first_dealer=first_dealer, seed=seed, decks={n: tuple(d) for n, d in decks.items()}, comment=("a comment",))
    again = parse_deal(format_deal(deal, as_json=as_json), as_json=as_json)
    assert (again.first_dealer, again.seed, again.decks) == (deal.first_dealer, deal.seed, deal.decks)


def _without(card: str) -> str:
    return " ".join(name for name in DECK.split() if name != card)


# (file text, what the one error line must name)
MALFORMED = {
    "card twice": (f'[rounds]\n1 = "{_without("QD")} AS"\n', ["rounds.1", "AS", "twice"]),
    "card missing": (f'[rounds]\n1 = "{_without("7C")}"\n', ["rounds.1", "51 cards", "7C"]),
    "bad card name": (f'[rounds]\n2 = "{DECK.replace("TD", "1D")}"\n', ["rounds.2", "'1D'", "position"]),
    "too few cards": ('[rounds]\n1 = "AS KS QS"\n', ["rounds.1", "3 cards", "expected all 52"]),
    "too many cards": (f'[rounds]\n1 = "{DECK} AS"\n', ["rounds.1", "AS", "twice"]),
    "bad first_dealer": ('first_dealer = -1\n[rounds]\n1 = "{DECK}"\n'.replace("{DECK}", DECK), ["first_dealer", "-1"]),
    "first_dealer not a number": ('first_dealer = "two"\n', ["first_dealer", '"two"']),
    "first_dealer off the table": (f'first_dealer = 2\n[rounds]\n1 = "{DECK}"\n', ["first_dealer = 2", "0-1"]),
    "bad round number": (f'[rounds]\nzero = "{DECK}"\n', ["rounds.zero", "round number"]),
    "round zero": (f'[rounds]\n0 = "{DECK}"\n', ["rounds.0", "round number"]),
    "deck not a string": ("[rounds]\n1 = 52\n", ["rounds.1", "52 cards"]),
    "unknown key": ("first_dealr = 1\n", ["first_dealr", "first_dealer"]),
    "TOML syntax": ('[rounds\n1 = "AS"\n', ["line 1"]),
    "nothing fixed": ("# empty\n", ["fixes nothing"]),
}


THROUGH_THE_CLI = ("card twice", "card missing", "bad card name", "too few cards", "bad first_dealer", "first_dealer off the table")


@pytest.mark.parametrize("case", sorted(set(MALFORMED) - {"first_dealer off the table"}))
def test_a_malformed_deal_text_is_one_config_error_naming_it(case: str) -> None:
    text, named = MALFORMED[case]
    with pytest.raises(ConfigError) as caught:
        parse_deal(text, "bad.toml")
    message = str(caught.value)
    assert message.startswith("bad.toml: ") and "\n" not in message
    for part in named:
        assert part in message, (part, message)


@pytest.mark.parametrize("case", THROUGH_THE_CLI)
def test_a_malformed_deal_file_is_refused_with_one_line_naming_it(case: str, tmp_path: Path) -> None:
    text, named = MALFORMED[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    line = error_line(referee("play", "heuristic", "random", "--sandbox", "none", "--results", tmp_path / "r.sqlite", "--deal", path))
    assert str(path) in line
    for part in named:
        assert part in line, (part, line)
    assert not (tmp_path / "r.sqlite").exists()  # refused before anything was played


def test_a_missing_deal_file_is_named(tmp_path: Path) -> None:
    line = error_line(referee("play", "heuristic", "random", "--deal", tmp_path / "nope.toml", "--results", tmp_path / "r.sqlite"))
    assert "nope.toml" in line and "no such deal file" in line


def test_parse_errors_are_config_errors_naming_the_source() -> None:
    with pytest.raises(ConfigError, match=r"^mine\.toml: rounds\.1: card AS appears twice"):
        parse_deal(f'[rounds]\n1 = "AS {_without("KH")}"\n', "mine.toml")


@pytest.mark.parametrize("as_json", [False, True])
def test_a_deal_keeps_its_rules_through_format_and_parse(as_json: bool) -> None:
    from referee.game.rules import Rules

    rules = Rules(required_tricks="strict", dog_life="off", allow_no_trump=True, start_hand_size=4)
    deal = Deal(first_dealer=1, decks={1: parse_cards(SHUFFLED)}, rules=rules)
    again = parse_deal(format_deal(deal, as_json=as_json), as_json=as_json)
    assert again.rules == rules and again.decks == deal.decks
    assert parse_deal(format_deal(Deal(first_dealer=1), as_json=as_json), as_json=as_json).rules is None


# (the [rules] table of a deal file, the exact error line)
BAD_RULES = [
    ('[rules]\ndog_life = "of"\n', "bad.toml: rules.dog_life: expected 'round1', 'any_round' or 'off', got \"of\""),
    ('[rules]\ndog_lif = "off"\n', "bad.toml: unknown key 'rules.dog_lif' (did you mean 'dog_life'?)"),
    ("rules = 3\n", "bad.toml: rules: expected a [rules] table, got 3"),
]


@pytest.mark.parametrize(("table", "line"), BAD_RULES)
def test_a_bad_rules_table_in_a_deal_file_is_one_line(table: str, line: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_deal("first_dealer = 0\n" + table, "bad.toml")
    assert str(caught.value) == line


def _deal_rules_cases() -> list[tuple[str, list[str], bool, object]]:
    return [
        ("no rules in the file: the options decide", ["dog_life=off"], False, {"dog_life": "off"}),
        ("an agreeing option", ["start_hand_size=5"], False, {"start_hand_size": 5}),
        ("a differing option", ["dog_life=any_round"], False,
         "--rule dog_life=any_round: the deal file hand.toml was played with dog_life=round1; "
         "drop --rule, or add --override-rules to play it under other rules"),
        ("a differing option, overridden", ["dog_life=any_round"], True, {"start_hand_size": 5, "dog_life": "any_round"}),
    ]


@pytest.mark.parametrize(("options", "override", "expected"), [case[1:] for case in _deal_rules_cases()],
                         ids=[case[0] for case in _deal_rules_cases()])
def test_play_deal_rules_against_rule_options(options: list[str], override: bool, expected: object) -> None:
    from referee.game.rules import Rules
    from referee.results.dealfile import deal_rules

    carried = None if options == ["dog_life=off"] else Rules(start_hand_size=5)
    deal = Deal(first_dealer=0, rules=carried, source="hand.toml")
    if isinstance(expected, str):
        with pytest.raises(ConfigError) as caught:
            deal_rules(deal, options, override=override)
        assert str(caught.value) == expected
    else:
        assert isinstance(expected, dict)
        assert deal_rules(deal, options, override=override) == Rules(**expected)


def test_override_rules_without_a_deal_file_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from referee.cli.main import main

    assert main(["play", "heuristic", "random", "--override-rules", "--results", str(tmp_path / "r.sqlite")]) == 2
    assert capsys.readouterr().err == "error: play: --override-rules goes with --deal FILE (it lets --rule change the deal file's rules)\n"
