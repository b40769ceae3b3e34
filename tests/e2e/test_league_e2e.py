"""A small league of real bot processes over real gRPC, through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

from referee.game.records import EVIDENCE_PER_SEAT
from tests.conftest import REPO, processes_matching, run_referee, write_config

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"


def league_config(tmp: Path, bots: dict[str, Path], *, table_size: int, deals: int = 1, extra: str = "") -> Path:
    lines = [
        "[league]",
        'name = "e2e"',
        "seed = 7",
        f"table_size = {table_size}",
        f"deals = {deals}",
        "concurrency = 2",
        f'results = "{tmp / "e2e.sqlite"}"',
        "[time]",
        "move_ms = 1500",  # generous: other referees may load the machine (sleepy_bot sleeps 3 s)
        "grace_ms = 100",
        "startup_ms = 15000",
        extra,
    ]
    for name, script in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{script}"]']
    return write_config(tmp / "league.toml", "\n".join(lines) + "\n")


def stored_records(results: Path) -> list[dict[str, object]]:
    import sqlite3

    with sqlite3.connect(results) as db:
        return [json.loads(row[0]) for row in db.execute("SELECT record FROM games ORDER BY fixture")]


def test_sample_league_completes_and_standings_come_from_the_store(short_tmp: Path) -> None:
    config = league_config(
        short_tmp,
        {
            "heuristic": SAMPLES / "heuristic_bot.py",
            "random": SAMPLES / "random_bot.py",
            "random-2": SAMPLES / "random_bot.py",
            "heuristic-2": SAMPLES / "heuristic_bot.py",
        },
        table_size=3,
    )
    done = run_referee("run", str(config), "--no-live")
    assert done.returncode == 0, done.stderr
    for name in ("heuristic", "random", "random-2", "heuristic-2"):
        assert name in done.stdout
    records = stored_records(short_tmp / "e2e.sqlite")
    assert len(records) == 4 * 3  # C(4,3) tables x 1 deal x 3 rotations
    assert all(not record["faults"] for record in records)
    assert all(sorted(record["placements"])[0] == 1 for record in records)

    as_json = run_referee("standings", str(short_tmp / "e2e.sqlite"), "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    standings = json.loads(as_json.stdout)
    rows = standings["rows"]
    assert {row["bot"] for row in rows} == {"heuristic", "random", "random-2", "heuristic-2"}
    assert sum(row["games"] for row in rows) == 12 * 3
    assert not processes_matching(str(SAMPLES))


def test_faulty_bots_get_the_right_fault_and_the_league_completes(short_tmp: Path) -> None:
    config = league_config(
        short_tmp,
        {
            "sleepy": BOTS / "sleepy_bot.py",
            "cheat": BOTS / "cheat_bot.py",
            "quitter": BOTS / "quitter_bot.py",
            "random": SAMPLES / "random_bot.py",
        },
        table_size=4,
        deals=1,
        extra="[faults]\nmax_faults = 10\n",
    )
    done = run_referee("run", str(config), "--no-live")
    assert done.returncode == 0, done.stderr
    records = stored_records(short_tmp / "e2e.sqlite")
    assert len(records) == 4  # one table, one deal, four rotations: every game finished
    kinds: dict[str, set[str]] = {}
    for record in records:
        evidence: dict[int, int] = {}
        for fault in record["faults"]:
            kinds.setdefault(fault["bot"], set()).add(fault["kind"])
            evidence[fault["seat"]] = evidence.get(fault["seat"], 0) + 1
            if evidence[fault["seat"]] <= EVIDENCE_PER_SEAT:
                assert fault["request"], "a seat's first faults in a game keep the request the bot was sent"
    assert kinds["sleepy"] == {"timeout"}
    assert kinds["cheat"] == {"illegal"}
    assert "crash" in kinds["quitter"]
    assert "random" not in kinds
    assert not processes_matching(str(BOTS))
    assert not processes_matching(str(SAMPLES))


def test_movement_league_plays_whole_rounds_under_its_budget_and_resumes(short_tmp: Path) -> None:
    """5 bots at tables of 2: a round is 5 tables x 2 rotations = 10 games (each bot 4, one bye)."""
    bots = {f"bot{i}": SAMPLES / ("heuristic_bot.py" if i % 2 else "random_bot.py") for i in range(5)}
    config = league_config(short_tmp, bots, table_size=2)
    text = config.read_text().replace('deals = 1\n', 'deals = 1\nformat = "movement"\ngames = 25\n')
    config.write_text(text)
    done = run_referee("run", str(config), "--no-live")
    assert done.returncode == 0, done.stderr
    assert "rounds of 10 games (4 per bot, 3 sittings of up to 2 tables); games = 25: 2 rounds, 20 games" in done.stdout
    assert "budget reached: 2 rounds, 20 games (games = 25)" in done.stdout
    records = stored_records(short_tmp / "e2e.sqlite")
    assert len(records) == 20 and {str(record["game_id"])[:4] for record in records} == {"rd01", "rd02"}
    again = run_referee("run", str(config), "--no-live", "--resume")
    assert again.returncode == 0, again.stderr
    assert "20 already played" in again.stdout and len(stored_records(short_tmp / "e2e.sqlite")) == 20
    assert not processes_matching(str(short_tmp))
