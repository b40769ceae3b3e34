"""Shared helpers of the fault tests: a small league of real bot processes run through
the real command line, its stored records, and the placement rule for forfeits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.game.records import GameRecord
from referee.results.store import ResultsStore
from tests.conftest import REPO, assert_asked_over, on_path, run_referee, write_config

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"
CHECKBOT_BOTS = REPO / "tests" / "checkbot" / "bots"
RANDOM = SAMPLES / "random_bot.py"
STARTUP_MS = 20_000  # generous: two shared cores, and `import grpc` is slow


def run_league(
    tmp: Path,
    bots: dict[str, list[str] | Path],
    *,
    time: str = "move_ms = 300\ngrace_ms = 100",
    faults: str = 'preset = "strict"',
    table_size: int | None = None,
    deals: int = 1,
    rules: str = "",
    concurrency: int = 1,
    path: str | None = None,
) -> list[GameRecord]:
    """Write a config, ``referee run`` it, assert it exits 0; return the stored games.

    ``bots``: name -> script (run with python) or a full command (list of words).
    ``path``: ``"unary"`` or ``"stream"``: every Python bot is run to be asked over it
    (:func:`tests.conftest.on_path`), and its log must say so; None: as the bots offer."""
    lines = [
        "[league]",
        'name = "faults"',
        "seed = 11",
        f"table_size = {table_size or len(bots)}",
        f"deals = {deals}",
        f"concurrency = {concurrency}",
        f'results = "{tmp / "faults.sqlite"}"',
        "[rules]",
        rules,
        "[time]",
        time,
        f"startup_ms = {STARTUP_MS}" if "startup_ms" not in time else "",
        "[faults]",
        faults,
    ]
    for name, bot in bots.items():
        command = ["python", str(bot)] if isinstance(bot, Path) else bot
        if path is not None and command[0] == "python":
            command = on_path(command, path)
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    config = write_config(tmp / "league.toml", "\n".join(lines) + "\n")
    done = run_referee("run", str(config), "--no-live")
    assert done.returncode == 0, done.stdout + done.stderr
    if path is not None:
        assert_asked_over(tmp / "faults", path)
    with ResultsStore.open_existing(tmp / "faults.sqlite") as store:
        return list(store.records())


def fault_round(record: GameRecord, decision: int | None) -> int:
    """The round in which decision ``decision`` was asked (1 for a fault before the game)."""
    if decision is None:
        return 1
    for fault in record.faults:
        if fault.decision == decision and fault.request:
            return int(json.loads(fault.request)["view"]["round_number"])
    raise AssertionError(f"no stored request for decision {decision} of {record.game_id}")


def assert_forfeit_placement(record: GameRecord, seat: int) -> None:
    """docs/design.md §5: a forfeiting seat is knocked out at the end of the round of its
    forfeit and placed below every seat that was still in by play at that point."""
    assert record.forfeited[seat], f"{record.seats[seat]} did not forfeit {record.game_id}"
    out = record.knocked_out_round[seat]
    assert out is not None, "a forfeiter never wins"
    for other in range(len(record.seats)):
        if other == seat or record.forfeited[other]:
            continue
        other_out = record.knocked_out_round[other]
        if other_out is None or other_out >= out:
            assert record.placements[other] < record.placements[seat], (record.game_id, record.placements, record.knocked_out_round)


def first_fault_round(record: GameRecord, bot: str) -> int:
    faults = [fault for fault in record.faults if fault.bot == bot]
    return fault_round(record, faults[0].decision)


def request_of(fault: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(fault.request)
    return data
