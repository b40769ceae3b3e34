"""``referee replay``: the list of games, the trick-by-trick trace, the record as JSON,
an unknown game id; and what a stored record holds (issue 3 §2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.game.rules import Rules
from tests.replay.helpers import error_line, play, referee, stored


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    results = tmp_path_factory.mktemp("replay") / "games.sqlite"
    play(results, "--games", "2", "--seed", "4", "--rule", "dog_life=any_round", bots=("heuristic", "random", "random"))
    return results


def test_a_stored_record_holds_everything_issue_3_names(games: Path) -> None:
    record = stored(games, "play-1")
    assert record["rules"] == {**Rules().as_dict(), "dog_life": "any_round"}
    assert record["seats"] == ["heuristic", "random", "random-2"]
    assert 0 <= record["first_dealer"] < 3
    assert len(record["decks"]) == len(record["rounds"]) and all(sorted(deck) == sorted(record["decks"][0]) for deck in record["decks"])
    assert all(len(deck) == 52 == len(set(deck)) for deck in record["decks"])
    assert record["actions"] and all({"seat", "kind", "action", "ms", "fault"} <= set(action) for action in record["actions"])
    assert {action["kind"] for action in record["actions"]} <= {"play", "choose_trump"}
    assert all(action["ms"] is not None and action["fault"] is None for action in record["actions"])
    for summary in record["rounds"]:
        assert {"trump", "trump_chooser", "dogs", "knocked_out", "tricks_won", "dealer"} <= set(summary)
        assert summary["tricks"] and all(trick["winner"] is not None for trick in summary["tricks"])
        assert (summary["trump_chooser"] is None) == (summary["round"] == 1)
    assert sorted(record["placements"])[0] == 1 and record["placements"][record["winner"]] == 1


def test_without_a_game_the_games_are_listed(games: Path) -> None:
    done = referee("replay", games)
    assert done.returncode == 0, done.stderr
    for text in ("play-1", "play-2", "heuristic", "random-2", "winner", "faults"):
        assert text in done.stdout
    listed = json.loads(referee("replay", games, "--format", "json").stdout)
    assert [row["game_id"] for row in listed] == ["play-1", "play-2"]
    assert listed[0]["seats"] == ["heuristic", "random", "random-2"] and listed[0]["faults"] == 0


def test_the_trace_shows_every_round_and_trick_with_suit_symbols(games: Path) -> None:
    record = stored(games, "play-2")
    done = referee("replay", games, "play-2")
    assert done.returncode == 0, done.stderr
    for summary in record["rounds"]:
        assert f"Round {summary['round']}" in done.stdout
    assert done.stdout.count("trick ") >= sum(len(s["tricks"]) for s in record["rounds"])
    assert any(symbol in done.stdout for symbol in "♠♥♦♣")
    assert "knocked out" in done.stdout and "result:" in done.stdout


def test_format_json_prints_the_record(games: Path) -> None:
    done = referee("replay", games, "play-1", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == stored(games, "play-1")


def test_an_unknown_game_is_one_line_saying_how_to_list_them(games: Path) -> None:
    line = error_line(referee("replay", games, "play-9"))
    assert "play-9" in line and f"referee replay {games}" in line and "did you mean" in line


def test_a_missing_results_file_is_one_line(tmp_path: Path) -> None:
    line = error_line(referee("replay", tmp_path / "none.sqlite", "play-1"))
    assert "none.sqlite" in line
