"""Every rule variant key works through ``referee play --rule KEY=VALUE`` and lands in
the record; a bad value is refused with one line naming the key (issue 3 acceptance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.helpers import error_line, play, referee, stored

# rules.md §2: every key with a value other than its default
VARIANTS = {
    "required_tricks": ("strict", "strict"),
    "dog_life": ("any_round", "any_round"),
    "dog_play": ("first_trick", "first_trick"),
    "turn_up": ("bottom", "bottom"),
    "trump_tiebreak": ("cut", "cut"),
    "allow_no_trump": ("true", True),
    "first_lead": ("trump_chooser", "trump_chooser"),
    "start_hand_size": ("3", 3),
}


def test_every_variant_key_plays_is_recorded_and_reruns(short_tmp: Path) -> None:
    options = [part for key, (text, _) in VARIANTS.items() for part in ("--rule", f"{key}={text}")]
    for key, (text, value) in VARIANTS.items():
        results = short_tmp / f"{key}.sqlite"
        play(results, "--rule", f"{key}={text}")
        record = stored(results, "play-1")
        assert record["rules"][key] == value
        assert sum(record["rules"][other] != default for other, default in _defaults().items()) == 1
        rerun = referee("replay", results, "play-1", "--rerun")
        assert rerun.returncode == 0 and "rerun identical" in rerun.stdout, rerun.stderr
    everything = short_tmp / "all.sqlite"
    play(everything, *options, bots=("heuristic", "random", "random"))
    record = stored(everything, "play-1")
    assert record["rules"] == {key: value for key, (_, value) in VARIANTS.items()}
    assert record["rounds"][0]["hand_size"] == 3
    assert record["rounds"][0]["turn_up"] == record["decks"][0][51]  # turn_up = bottom (rules.md R7)


def _defaults() -> dict[str, object]:
    from referee.game.rules import Rules

    return Rules().as_dict()


BAD = {
    "required_tricks=two": "required_tricks",
    "dog_life=of": "dog_life",
    "dog_play=last_trick": "dog_play",
    "turn_up=middle": "turn_up",
    "trump_tiebreak=coin": "trump_tiebreak",
    "allow_no_trump=maybe": "allow_no_trump",
    "first_lead=dealer": "first_lead",
    "start_hand_size=0": "start_hand_size",
    "start_hand_size=seven": "start_hand_size",
    "start_hand_size=8": "start_hand_size",  # too large for any table: 7 x 8 > 51 (rules.md §2)
    "dog_lives=off": "dog_lives",
    "dog_life": "dog_life",
}


@pytest.mark.parametrize("option", sorted(BAD))
def test_a_bad_rule_option_is_one_line_naming_the_key(option: str, tmp_path: Path) -> None:
    line = error_line(referee("play", "heuristic", "random", "--rule", option, "--results", tmp_path / "r.sqlite"))
    assert BAD[option] in line and "--rule" in line
    assert not (tmp_path / "r.sqlite").exists()


def test_a_bad_rule_in_a_league_config_names_the_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "night.toml"
    config.write_text('[league]\ntable_size = 2\n[rules]\nstart_hand_size = 9\n[[bots]]\nname = "a"\ncommand = "python x.py"\n[[bots]]\nname = "b"\ncommand = "python x.py"\n')
    line = error_line(referee("run", config, "--no-live"))
    assert "night.toml" in line and "start_hand_size" in line
