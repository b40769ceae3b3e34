"""Issue 3 acceptance: a game played from a deal file and the same game replayed from
its exported deal file give identical records (through the real CLI, real bots)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.game.cards import CARDS
from referee.results.dealfile import read_deal
from tests.replay.helpers import error_line, play, referee, stored, without_times


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_export_deal_then_play_deal_gives_an_identical_record(short_tmp: Path, suffix: str) -> None:
    play(short_tmp / "first.sqlite", "--seed", "11", bots=("heuristic", "random", "random"))
    deal = short_tmp / f"deal{suffix}"
    exported = referee("replay", short_tmp / "first.sqlite", "play-1", "--export-deal", deal)
    assert exported.returncode == 0, exported.stderr
    original = stored(short_tmp / "first.sqlite", "play-1")
    parsed = read_deal(deal)
    assert parsed.first_dealer == original["first_dealer"] and parsed.seed == original["seed"]
    assert [[str(card) for card in parsed.decks[n]] for n in sorted(parsed.decks)] == original["decks"]

    # a different --seed: the deal file's seed and decks make the game, not the command line
    play(short_tmp / "again.sqlite", "--deal", deal, "--seed", "12345", bots=("heuristic", "random", "random"))
    again = stored(short_tmp / "again.sqlite", "play-1")
    assert without_times(again) == without_times(original)

    # and the replayed game's own export is the same deal again
    referee("replay", short_tmp / "again.sqlite", "play-1", "--export-deal", short_tmp / f"again{suffix}")
    assert read_deal(short_tmp / f"again{suffix}").decks == parsed.decks


def test_a_hand_written_deal_fixes_the_listed_rounds_and_the_first_dealer(short_tmp: Path) -> None:
    ordered = " ".join(str(card) for card in CARDS)  # spades 2..A, hearts, diamonds, clubs
    deal = short_tmp / "hand.toml"
    deal.write_text(f'first_dealer = 1\n[rounds]\n1 = "{ordered}"\n')
    for results in ("a.sqlite", "b.sqlite"):
        play(short_tmp / results, "--deal", deal)
    record = stored(short_tmp / "a.sqlite", "play-1")
    assert record["first_dealer"] == 1
    assert record["decks"][0] == ordered.split()
    first = record["rounds"][0]
    # docs/rules.md R6, R7: dealer seat 1, so seat 0 gets positions 0, 2, 4..., seat 1 positions 1, 3, 5...; turn-up is position 14
    assert first["hands"] == [["2S", "4S", "6S", "8S", "TS", "QS", "AS"], ["3S", "5S", "7S", "9S", "JS", "KS", "2H"]]
    assert first["turn_up"] == "3H" and first["trump"] == "H"
    # rounds not listed are shuffled from the seed: the same seed gives the same game
    assert without_times(stored(short_tmp / "b.sqlite", "play-1")) == without_times(record)
    assert record["decks"][1] != ordered.split()  # round 2 was shuffled (default rules: a 2-player game has 2+ rounds)


def test_every_game_of_a_match_gets_the_deal(short_tmp: Path) -> None:
    play(short_tmp / "first.sqlite", "--seed", "3")
    referee("replay", short_tmp / "first.sqlite", "play-1", "--export-deal", short_tmp / "deal.toml")
    play(short_tmp / "both.sqlite", "--deal", short_tmp / "deal.toml", "--games", "2")
    one, two = stored(short_tmp / "both.sqlite", "play-1"), stored(short_tmp / "both.sqlite", "play-2")
    assert one["first_dealer"] == two["first_dealer"]
    shared = min(len(one["decks"]), len(two["decks"]))
    assert one["decks"][:shared] == two["decks"][:shared]
    assert one["seats"] == list(reversed(two["seats"]))  # the seats rotate, the cards stay


def test_a_deal_file_carries_its_non_default_rules_through_export_and_play(short_tmp: Path) -> None:
    rules = ("--rule", "dog_life=off", "--rule", "start_hand_size=5", "--rule", "allow_no_trump=true")
    play(short_tmp / "first.sqlite", "--seed", "4", *rules, bots=("heuristic", "random", "random"))
    deal = short_tmp / "deal.toml"
    assert referee("replay", short_tmp / "first.sqlite", "play-1", "--export-deal", deal).returncode == 0
    assert "\n[rules]" in deal.read_text()
    original = stored(short_tmp / "first.sqlite", "play-1")

    # no --rule: the deal file's rules are played, and the game is the same again
    done = referee("play", "heuristic", "random", "random", "--sandbox", "none", "--results", short_tmp / "again.sqlite", "--deal", deal)
    assert done.returncode == 0, done.stderr
    assert "rules of the deal file: dog_life=off, allow_no_trump=true, start_hand_size=5 (defaults otherwise)" in done.stdout
    again = stored(short_tmp / "again.sqlite", "play-1")
    assert again["rules"] == original["rules"] and original["rules"]["dog_life"] == "off"
    assert without_times(again) == without_times(original)

    # a --rule that agrees is accepted; one that differs is refused in one line ...
    play(short_tmp / "agree.sqlite", "--deal", deal, "--rule", "dog_life=off", bots=("heuristic", "random", "random"))
    refused = referee("play", "heuristic", "random", "random", "--results", short_tmp / "no.sqlite", "--deal", deal, "--rule", "dog_life=round1")
    assert error_line(refused) == (
        f"error: --rule dog_life=round1: the deal file {deal} was played with dog_life=off; "
        "drop --rule, or add --override-rules to play it under other rules"
    )
    assert not (short_tmp / "no.sqlite").exists()

    # ... unless the override is asked for: the option replaces that rule only
    play(short_tmp / "over.sqlite", "--deal", deal, "--rule", "dog_life=round1", "--override-rules", bots=("heuristic", "random", "random"))
    assert stored(short_tmp / "over.sqlite", "play-1")["rules"] == {**original["rules"], "dog_life": "round1"}
