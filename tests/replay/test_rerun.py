"""``referee replay RESULTS GAME --rerun`` (issue 3 §3): identical on stored games,
exit 1 with a clear line on a tampered record."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, write_config
from tests.replay.helpers import copy_results, game_ids, play, referee, stored, tamper

E2E_BOTS = REPO / "tests" / "e2e" / "bots"
SAMPLES = REPO / "sample_bots" / "python"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    results = tmp_path_factory.mktemp("rerun") / "games.sqlite"
    play(results, "--games", "4", "--seed", "21", bots=("heuristic", "random", "random", "heuristic"))
    return results


def test_rerun_is_identical_on_every_stored_game(games: Path) -> None:
    for game_id in game_ids(games):
        done = referee("replay", games, game_id, "--rerun")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"rerun identical: game {game_id}")


def test_rerun_is_identical_with_faults_and_forfeits(short_tmp: Path) -> None:
    """A cheat forfeits at its first fault (strict): the referee plays its moves, the
    forfeit is replayed at the same decision."""
    config = write_config(
        short_tmp / "strict.toml",
        "\n".join(
            [
                "[league]", "seed = 3", "table_size = 3", "concurrency = 1", f'results = "{short_tmp / "strict.sqlite"}"',
                "[faults]", 'preset = "strict"', "[sandbox]", 'mode = "none"',
                "[[bots]]", 'name = "cheat"', f'command = ["python", "{E2E_BOTS / "cheat_bot.py"}"]',
                "[[bots]]", 'name = "random"', f'command = ["python", "{SAMPLES / "random_bot.py"}"]',
                "[[bots]]", 'name = "heuristic"', f'command = ["python", "{SAMPLES / "heuristic_bot.py"}"]',
            ]
        )
        + "\n",
    )
    ran = referee("run", config, "--no-live")
    assert ran.returncode == 0, ran.stderr
    results = short_tmp / "strict.sqlite"
    for game_id in game_ids(results):
        record = stored(results, game_id)
        assert record["forfeits"] and record["faults"]
        done = referee("replay", results, game_id, "--rerun")
        assert done.returncode == 0, done.stderr
        seat = record["seats"].index("cheat")
        transcript = referee("replay", results, game_id, "--seat", seat, "--format", "json")
        asked = [a for a in record["actions"] if a["seat"] == seat and a["ms"] is not None]
        assert len(transcript.stdout.splitlines()) == len(asked) < sum(a["seat"] == seat for a in record["actions"])


def _winner_of_first_trick(record: dict[str, Any]) -> str:
    trick = record["rounds"][0]["tricks"][0]
    loser = next(seat for seat, _ in trick["plays"] if seat != trick["winner"])
    trick["winner"] = loser
    return "round 1 trick 1 winner"


def _trump_of_round_one(record: dict[str, Any]) -> str:
    record["rounds"][0]["trump"] = "S" if record["rounds"][0]["trump"] != "S" else "H"
    return "round 1 trump"


def _chooser_of_round_two(record: dict[str, Any]) -> str:
    summary = record["rounds"][1]
    summary["trump_chooser"] = (summary["trump_chooser"] + 1) % len(record["seats"])
    return "round 2 trump chooser"


def _knock_outs(record: dict[str, Any]) -> str:
    summary = next(s for s in record["rounds"] if s["knocked_out"])
    summary["knocked_out"] = []
    return f"round {summary['round']} knocked out"


def _dogs(record: dict[str, Any]) -> str:
    record["rounds"][0]["dogs"] = [0] if record["rounds"][0]["dogs"] != [0] else [1]
    return "round 1 dogs"


def _placements(record: dict[str, Any]) -> str:
    record["placements"] = list(reversed(record["placements"]))
    return "placements"


def _an_action(record: dict[str, Any]) -> str:
    first, second = record["actions"][0], record["actions"][1]
    first["action"], second["action"] = second["action"], first["action"]
    return "does not replay"


TAMPERINGS: dict[str, Callable[[dict[str, Any]], str]] = {
    "trick winner": _winner_of_first_trick,
    "trump": _trump_of_round_one,
    "trump chooser": _chooser_of_round_two,
    "knock-out": _knock_outs,
    "dogs": _dogs,
    "placements": _placements,
    "action": _an_action,
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_rerun_fails_loudly_on_a_tampered_record(games: Path, tmp_path: Path, name: str) -> None:
    copy = tmp_path / "tampered.sqlite"
    copy_results(games, copy)
    record = stored(copy, "play-1")
    expected = TAMPERINGS[name](record)
    tamper(copy, "play-1", record)
    done = referee("replay", copy, "play-1", "--rerun")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "rerun identical" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines and all(line.startswith("rerun differs: game play-1: ") for line in lines)
    assert any(expected in line for line in lines), lines
