"""The pool keeps idle bot processes only while it may (docs/design.md §6): a process never
plays a deal twice, so a bot would otherwise keep one per rotation it plays at once. It
never holds more than ``processes_at_once`` (the least recently used idle one is stopped
first), and it stops idle processes while the machine is short of memory
(:mod:`referee.league.spare`, read from /proc/meminfo and the referee's memory cgroups)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from referee.game.timecontrol import TimeControl
from referee.league import spare
from referee.league.pool import BotEntry, BotPool, Lease
from referee.sandbox import SandboxSettings, live_processes
from tests.conftest import REPO

RANDOM_BOT = REPO / "sample_bots" / "python" / "random_bot.py"
MiB = 1024 * 1024


def entry(name: str) -> BotEntry:
    return BotEntry(name, ("python", str(RANDOM_BOT)), directory=RANDOM_BOT.parent)


def pool(tmp: Path, names: Sequence[str], processes_at_once: int) -> BotPool:
    return BotPool(
        [entry(name) for name in names], run_dir=tmp / "run", sandbox=SandboxSettings(mode="none"),
        time=TimeControl(startup_ms=60_000), max_restarts=0, processes_at_once=processes_at_once,
    )  # fmt: skip


def alive(leases: Sequence[Lease]) -> int:
    return sum(1 for lease in leases if lease.process is not None and lease.process.poll() is None)


def test_the_pool_never_holds_more_than_processes_at_once(short_tmp: Path) -> None:
    """Four rotations of one deal, one after the other, each need a process of their own
    (the deal rule); with room for three, the least recently used idle one goes first."""
    seen: list[Lease] = []
    counts: list[int] = []

    async def main() -> None:
        async with pool(short_tmp, ["a", "b"], processes_at_once=3) as bots:
            for rotation in range(4):
                lease = await bots.acquire("a", "deal-1")
                assert isinstance(lease, Lease), lease
                assert lease not in seen, "a process played the deal twice"
                seen.append(lease)
                counts.append(len(live_processes()))
                bots.release(lease, crashed=False)
            other = await bots.acquire("b", "deal-1")
            assert isinstance(other, Lease), other
            counts.append(len(live_processes()))
            assert seen[0].process is not None and seen[0].process.poll() is not None, "the first (least recently used) went first"
            assert "stopped while idle" in seen[0].process.log_path.read_text()
            assert alive(seen[2:]) == 2, "the most recently used ones are kept"

    trio.run(main)
    assert max(counts) <= 3, counts


@pytest.mark.parametrize(("available", "reserve", "stopped"), [(8000 * MiB, 1000 * MiB, []), (100 * MiB, 1000 * MiB, [0])])
def test_an_idle_process_is_stopped_when_the_machine_is_short_of_memory(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch, available: int, reserve: int, stopped: list[int]
) -> None:
    """Two processes played deal 1 and are idle; a third rotation of deal 1 needs a new one.
    Short of memory, the least recently used idle process is stopped before it starts."""
    leases: list[Lease] = []

    async def main() -> None:
        async with pool(short_tmp, ["a"], processes_at_once=10) as bots:
            for _ in range(2):
                lease = await bots.acquire("a", "deal-1")
                assert isinstance(lease, Lease), lease
                leases.append(lease)
            for lease in leases:
                bots.release(lease, crashed=False)
            monkeypatch.setattr(spare, "spare_and_reserve", lambda: (available, reserve))
            monkeypatch.setattr(spare, "_last", None)
            third = await bots.acquire("a", "deal-1")
            assert isinstance(third, Lease) and third not in leases, third
            assert [index for index, lease in enumerate(leases) if lease.process is not None and lease.process.poll() is not None] == stopped

    trio.run(main)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(
    ("version", "files", "expected_spare", "expected_reserve"),
    [
        ("v2", {"memory.max": "max\n", "memory.current": "100\n"}, 6000 * MiB, 1000 * MiB),  # no limit: the machine's
        ("v2", {"memory.max": f"{2048 * MiB}\n", "memory.current": f"{1536 * MiB}\n", "memory.stat": f"anon 1\ninactive_file {256 * MiB}\n"}, 768 * MiB, 256 * MiB),
        ("v1", {"memory.limit_in_bytes": f"{1 << 62}\n", "memory.usage_in_bytes": "100\n"}, 6000 * MiB, 1000 * MiB),  # v1's "no limit"
        ("v1", {"memory.limit_in_bytes": f"{4096 * MiB}\n", "memory.usage_in_bytes": f"{4000 * MiB}\n", "memory.stat": "total_inactive_file 0\n"}, 96 * MiB, 512 * MiB),
    ],
)
def test_the_memory_to_spare_is_the_least_of_the_machine_and_the_referees_cgroup_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, files: dict[str, str], expected_spare: int, expected_reserve: int
) -> None:
    """A container's limit (the referee's cgroup or one above it) bounds what is spare; its
    inactive file cache counts as free, as in MemAvailable. The reserve: 1/8 of the tightest."""
    for name, text in files.items():
        write(tmp_path / "group" / name, text)
    monkeypatch.setattr(spare, "_meminfo", lambda: {"MemAvailable": 6000 * MiB, "MemTotal": 8000 * MiB})
    monkeypatch.setattr(spare, "_own_cgroups", lambda: ((tmp_path / "group", version), (tmp_path, version)))
    assert spare.spare_and_reserve() == (expected_spare, expected_reserve)
