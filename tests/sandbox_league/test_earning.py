"""No excuse a bot can earn (docs/design.md §5, "A loaded machine"). Two bots hold the
first ask of every odd decision well past the limit and would answer a second ask at once:
one sleeps through the hold, the other forks 6 processes that spin through it (far more
than the cores: they keep each other, the referee and the sleeper waiting). On a machine
loaded only by themselves neither is excused a hold or asked it again: every hold is a
timeout, its message does not suggest the machine, and the burner gets no more excuses
than the sleeper. Run by root and by a normal user, both under bubblewrap; "root with a
CPU cgroup" needs a cgroup v2 host (elsewhere a root referee has none: the process-tree
path, as here).

Beside other busy programs the burner's spinners do wait for a core while none of them
runs, and that time is the machine's, as a thinker's would be (docs/design.md §5): so the
test needs a machine the league has to itself, and is skipped while other programs keep
it busy (more than half of its CPU, over the 2 s before it starts)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from referee.game.records import GameRecord
from referee.results.store import ResultsStore
from tests.conftest import run_referee
from tests.normal_user import NormalUser
from tests.sandbox_league.helpers import Staged, assert_no_process_left

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(600)]

MOVE_MS, GRACE_MS = 300, 300  # a limit of 600 ms; the machine must take more than the grace to ask again
HOLD_S = 1.5  # 2.5 x the limit


def league_config(results: Path, staged: Staged) -> str:
    lines = [
        "[league]", 'name = "earning"', "seed = 8", "table_size = 3", "deals = 2", "concurrency = 1", f'results = "{results}"',
        "[rules]", "start_hand_size = 4",
        "[time]", f"move_ms = {MOVE_MS}", f"grace_ms = {GRACE_MS}", "startup_ms = 30000",
        "[faults]", "max_faults = 10",  # no forfeit: every hold is asked
        "[sandbox]", 'mode = "bwrap"', "pids = 64",
    ]  # fmt: skip
    holder = staged("holding_bot.py")
    for name, command in (
        ("burner", ["python", str(holder), "burn", str(HOLD_S)]),
        ("sleeper", ["python", str(holder), "sleep", str(HOLD_S)]),
        ("random", ["python", str(staged.random)]),
    ):
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    return "\n".join(lines) + "\n"


def holds(records: list[GameRecord], bot: str) -> list[tuple[str, int]]:
    """The odd decisions ``bot`` was asked (their first ask held)."""
    return [
        (record.game_id, index)
        for record in records
        for index, action in enumerate(record.actions)
        if record.seats[action.seat] == bot and action.ms is not None and index % 2 == 1
    ]


def assert_nothing_earned(records: list[GameRecord]) -> None:
    assert len(records) == 6
    excused = {}
    for bot in ("burner", "sleeper"):
        held = holds(records, bot)
        assert held, f"{bot} held no decision"
        faults = {(record.game_id, fault.decision): fault for record in records for fault in record.faults if fault.bot == bot}
        overloads = {(record.game_id, o.decision) for record in records for o in record.overloads if o.bot == bot}
        excused[bot] = len(set(held) & overloads)
        assert [key for key in held if key not in faults] == [], f"{bot}: a hold was not charged"
        assert all(faults[key].kind == "timeout" for key in held)
        assert not [faults[key].detail for key in held if "machine" in faults[key].detail], f"{bot}: a hold's message suggests the machine"
    assert excused == {"burner": 0, "sleeper": 0}, "no hold is excused or asked again"
    assert [fault for record in records for fault in record.faults if fault.bot == "random"] == []


def busy_share(seconds: float = 2.0) -> float:
    """The share (0-1) of the machine's CPU time that was busy over the next ``seconds``."""

    def times() -> tuple[int, int]:
        fields = [int(word) for word in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # all, idle + iowait

    total, idle = times()
    time.sleep(seconds)
    total2, idle2 = times()
    return 1 - (idle2 - idle) / max(1, total2 - total)


@pytest.fixture(autouse=True)
def machine_to_itself() -> None:
    busy = busy_share()
    if busy > 0.5:
        pytest.skip(f"other programs keep the machine busy ({busy:.0%} of its CPU): this test needs it to itself")


def test_no_excuse_is_earned_by_root(short_tmp: Path, staged: Staged) -> None:
    results = short_tmp / "earning.sqlite"
    config = short_tmp / "earning.toml"
    config.write_text(league_config(results, staged))
    done = run_referee("run", str(config), "--no-live")
    assert done.returncode == 0, done.stdout + done.stderr
    with ResultsStore.open_existing(results) as store:
        assert_nothing_earned(list(store.records()))
    assert_no_process_left(staged.dir)


def test_no_excuse_is_earned_by_a_normal_user(staged: Staged, as_normal_user: NormalUser) -> None:
    user = as_normal_user
    results = user.home / "earning.sqlite"
    config = user.home / "earning.toml"
    config.write_text(league_config(results, staged))
    user.give(config)
    done = user.run("run", str(config), "--no-live", cwd=user.home)
    assert done.returncode == 0, done.stdout + done.stderr
    with ResultsStore.open_existing(results) as store:
        assert_nothing_earned(list(store.records()))
    assert_no_process_left(staged.dir)
