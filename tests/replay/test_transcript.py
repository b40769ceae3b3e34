"""``referee replay RESULTS GAME --seat N`` (issue 3 §3): exactly what seat N was sent,
request by request, and never another seat's hand."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from referee.game.cards import Card, Rank, Suit, parse_card
from tests.conftest import REPO, write_config
from tests.replay.helpers import BOTS, game_ids, play, referee, stored

SAMPLES = REPO / "sample_bots" / "python"


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A league of the recorder bot (an illegal answer and a timeout each game) and two sample bots; returns
    (results file, the recorder's log of every request it received)."""
    tmp = tmp_path_factory.mktemp("league")
    log = tmp / "received.jsonl"
    config = write_config(
        tmp / "night.toml",
        "\n".join(
            [
                "[league]", 'name = "transcript"', "seed = 5", "table_size = 3", "deals = 1", "concurrency = 1",
                f'results = "{tmp / "night.sqlite"}"',
                "[time]", "move_ms = 700", "bank_ms = 300", "startup_ms = 15000",
                "[sandbox]", 'mode = "none"',
                "[[bots]]", 'name = "recorder"', f'command = ["python", "{BOTS / "recorder_bot.py"}", "{log}"]',
                "[[bots]]", 'name = "heuristic"', f'command = ["python", "{SAMPLES / "heuristic_bot.py"}"]',
                "[[bots]]", 'name = "random"', f'command = ["python", "{SAMPLES / "random_bot.py"}"]',
            ]
        )
        + "\n",
    )
    done = referee("run", config, "--no-live")
    assert done.returncode == 0, done.stderr
    return tmp / "night.sqlite", log


def _received(log: Path, game_id: str) -> list[str]:
    return [line for line in log.read_text().splitlines() if json.loads(line)["game_id"] == game_id]


def test_the_json_transcript_is_byte_for_byte_what_the_bot_received(league: tuple[Path, Path]) -> None:
    results, log = league
    ids = game_ids(results)
    assert len(ids) == 3  # one table, one deal, three rotations
    for game_id in ids:
        record = stored(results, game_id)
        seat = record["seats"].index("recorder")
        done = referee("replay", results, game_id, "--seat", seat, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == _received(log, game_id)
        kinds = [fault["kind"] for fault in record["faults"]]
        assert "illegal" in kinds and "timeout" in kinds, kinds


def test_the_rich_transcript_shows_every_request_and_the_fault(league: tuple[Path, Path]) -> None:
    results, _ = league
    game_id = game_ids(results)[0]
    record = stored(results, game_id)
    seat = record["seats"].index("recorder")
    done = referee("replay", results, game_id, "--seat", seat)
    assert done.returncode == 0, done.stderr
    decisions = [index for index, action in enumerate(record["actions"]) if action["seat"] == seat]
    headers = re.findall(r"request (\d+)/(\d+) · decision (\d+)", done.stdout)
    assert [int(decision) for _, _, decision in headers] == decisions
    assert "illegal:" in done.stdout and "the referee played" in done.stdout
    assert "700 ms left, bank 300 ms" in done.stdout
    assert "timeout:" in done.stdout  # later requests: the bank is spent
    assert "differs from this rebuilt one" not in done.stdout


def _cards_in(data: Any) -> set[Card]:
    """Every card anywhere in a request's JSON."""
    found: set[Card] = set()
    if isinstance(data, dict):
        if set(data) == {"rank", "suit"}:
            found.add(Card(Rank[data["rank"]], Suit[data["suit"]]))
        for value in data.values():
            found |= _cards_in(value)
    elif isinstance(data, list):
        for item in data:
            found |= _cards_in(item)
    return found


def _public_before(record: dict[str, Any], decision: int) -> set[Card]:
    """Cards every seat has seen before ``decision``: every card played, every turn-up."""
    seen = {parse_card(action["action"]) for action in record["actions"][:decision] if action["action"] != "pass" and not action["action"].startswith("trump")}
    return seen | {parse_card(summary["turn_up"]) for summary in record["rounds"] if summary["turn_up"]}


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    results = tmp_path_factory.mktemp("four") / "four.sqlite"
    play(results, "--seed", "8", bots=("heuristic", "random", "random", "heuristic"))
    return results


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_a_seat_is_sent_one_request_per_decision_and_never_another_seats_hand(four: Path, seat: int) -> None:
    record = stored(four, "play-1")
    as_json = referee("replay", four, "play-1", "--seat", seat, "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    requests = [json.loads(line) for line in as_json.stdout.splitlines()]
    mine = [index for index, action in enumerate(record["actions"]) if action["seat"] == seat]
    assert [request["decision_number"] for request in requests] == mine
    for request in requests:
        summary = record["rounds"][request["view"]["round_number"] - 1]
        own = {parse_card(name) for name in summary["hands"][seat]}
        assert request["view"]["seat"] == seat
        assert _cards_in(request["view"]["hand"]) <= own
        assert _cards_in(request) <= own | _public_before(record, request["decision_number"]), "another seat's card"
    rich = referee("replay", four, "play-1", "--seat", seat)
    assert rich.returncode == 0, rich.stderr
    assert len(re.findall(r"^request \d+/\d+ · decision", rich.stdout, re.MULTILINE)) == len(mine)
    assert "1000 ms left" in rich.stdout  # referee play keeps its time control with the games
    dealt = {parse_card(name) for summary in record["rounds"] for name in summary["hands"][seat]}
    for line in re.findall(r"^  hand:\s+(.*)$", rich.stdout, re.MULTILINE):
        shown = {parse_card(part[0] + "SHDC"["♠♥♦♣".index(part[1])]) for part in line.split() if part != "(empty)"}
        assert shown <= dealt


def test_a_seat_the_game_does_not_have_is_refused(short_tmp: Path) -> None:
    play(short_tmp / "r.sqlite")
    done = referee("replay", short_tmp / "r.sqlite", "play-1", "--seat", "5")
    assert done.returncode == 2 and "--seat 5" in done.stderr and "0-1" in done.stderr
