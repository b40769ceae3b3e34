"""One seat numbering everywhere (issue 18): seats are 0-based and printed ``seat N`` (a bot
as ``heuristic (seat 2)``) in the trace, the per-seat transcript, the game list, the rerun
check and exported deal files; never ``P1``."""

from __future__ import annotations

import re
from pathlib import Path

from referee.cli.replay import rerun_differences
from referee.game.records import GameRecord
from tests.replay.helpers import play, referee, stored

_P_SEAT = re.compile(r"\bP\d\b")


def test_every_replay_output_says_seat_n_never_pn(short_tmp: Path) -> None:
    results = short_tmp / "seats.sqlite"
    play(results, "--seed", "5", bots=("heuristic", "random", "random"))
    deal = short_tmp / "deal.toml"
    outputs = {
        "list": referee("replay", results),
        "trace": referee("replay", results, "play-1"),
        "transcript": referee("replay", results, "play-1", "--seat", "2"),
        "export": referee("replay", results, "play-1", "--export-deal", deal),
    }
    texts = {name: done.stdout for name, done in outputs.items()}
    texts["deal file"] = deal.read_text()
    for name, text in texts.items():
        assert outputs.get(name) is None or outputs[name].returncode == 0, outputs[name].stderr
        assert not _P_SEAT.findall(text), (name, _P_SEAT.findall(text)[:5])
    assert "heuristic (seat 0), random (seat 1), random-2 (seat 2)" in texts["list"]
    assert "seats: heuristic (seat 0), random (seat 1), random-2 (seat 2)" in texts["trace"]
    assert re.search(r"trick 1: seat \d .+→ \S+ \(seat \d\)", texts["trace"])
    assert "what random-2 (seat 2) was sent" in texts["transcript"] and "you are random-2 (seat 2)" in texts["transcript"]
    assert "# Deal of game play-1 in " in texts["deal file"] and ": seat 0 heuristic, seat 1 random, seat 2 random-2" in texts["deal file"]


def test_rerun_differences_name_seats(short_tmp: Path) -> None:
    results = short_tmp / "rerun.sqlite"
    play(results, "--seed", "2")
    data = stored(results, "play-1")
    trick = data["rounds"][0]["tricks"][0]
    loser = next(seat for seat, _ in trick["plays"] if seat != trick["winner"])
    winner, trick["winner"] = trick["winner"], loser
    lines = rerun_differences(GameRecord.from_json(data))
    assert f"round 1 trick 1 winner: seat {loser} in the record, seat {winner} on rerun" in lines


def test_names_are_printed_as_written_never_as_markup(short_tmp: Path) -> None:
    results = short_tmp / "names.sqlite"
    done = referee("play", "[bold]x[/bold]=random", "josé=heuristic", "--sandbox", "none", "--results", results, "--games", "2")
    assert done.returncode == 0, done.stderr
    assert "[bold]x[/bold]" in done.stdout and "josé" in done.stdout  # the placement lines and the standings
    listed = referee("replay", results)
    assert "[bold]x[/bold] (seat 0), josé (seat 1)" in listed.stdout
