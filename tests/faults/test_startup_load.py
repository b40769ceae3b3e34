"""Start-up on a loaded machine (docs/design.md §5): the allowance counts from the
process start, whether or not the bot's socket exists yet, and is stretched while the
process lives; the messages give the real time a bot had and its real log; bots start a
few at a time, however many games ask for them at once."""

from __future__ import annotations

import re
from pathlib import Path

import trio

from referee.game.timecontrol import TimeControl
from referee.league.pool import BotEntry, BotPool, Lease, StartFailure
from referee.sandbox import SandboxSettings, resolve_mode
from tests.conftest import run_referee, write_config
from tests.faults.helpers import BOTS


def acquire_one(tmp: Path, command: tuple[str, ...], startup_ms: int) -> Lease | StartFailure | None:
    mode, _ = resolve_mode(SandboxSettings())
    entry = BotEntry("bot", command, directory=BOTS)

    async def main() -> Lease | StartFailure | None:
        settings = SandboxSettings(mode=mode)  # type: ignore[arg-type]
        async with BotPool((entry,), run_dir=tmp / "run", sandbox=settings, time=TimeControl(startup_ms=startup_ms), max_restarts=0) as pool:
            return await pool.acquire("bot")

    return trio.run(main)


def test_a_bot_that_binds_its_socket_after_startup_ms_starts_on_a_loaded_machine(short_tmp: Path, cpu_hog: int) -> None:
    got = acquire_one(short_tmp, ("python", str(BOTS / "slow_bind_bot.py"), "--delay-s", "13"), startup_ms=10_000)
    assert isinstance(got, Lease), got


def test_a_bot_that_never_answers_hello_is_told_the_real_time_it_had(short_tmp: Path) -> None:
    # its socket comes at 0.9 s of a 1 s allowance; Hello is never answered
    command = ("python", str(BOTS / "slow_bind_bot.py"), "--delay-s", "0.9", "--no-hello")
    got = acquire_one(short_tmp, command, startup_ms=1_000)
    assert isinstance(got, StartFailure) and got.kind == "startup", got
    seconds = float(re.search(r"within ([\d.]+) s of its start", got.detail).group(1))  # type: ignore[union-attr]
    assert seconds >= 1.0, got.detail  # not "within 0.001 s": the time it really had
    assert "startup_ms = 1 s" in got.detail, got.detail


def test_bots_start_a_few_at_a_time(short_tmp: Path) -> None:
    """Six bots asked for at once (a league starting, or resuming) start two at a time."""
    stamps = short_tmp / "stamps.txt"
    entries = tuple(
        BotEntry(f"bot{n}", ("python", str(BOTS / "slow_bind_bot.py"), "--delay-s", "0.5", "--stamp", str(stamps)), directory=BOTS)
        for n in range(6)
    )

    async def main() -> list[Lease | StartFailure | None]:
        got: list[Lease | StartFailure | None] = []
        settings = SandboxSettings(mode="none")  # the bots write their stamps here
        async with BotPool(entries, run_dir=short_tmp / "run", sandbox=settings, time=TimeControl(startup_ms=60_000), max_restarts=0, starts_at_once=2) as pool:

            async def one(name: str) -> None:
                got.append(await pool.acquire(name))

            async with trio.open_nursery() as nursery:
                for entry in entries:
                    nursery.start_soon(one, entry.name)
        return got

    got = trio.run(main)
    assert all(isinstance(lease, Lease) for lease in got), got
    events = sorted((float(when), what) for when, what in (line.split() for line in stamps.read_text().splitlines()))
    starting = most = 0
    for _, what in events:
        starting += 1 if what == "start" else -1
        most = max(most, starting)
    assert len(events) == 12 and most <= 2, events


def test_a_startup_faults_log_line_names_the_log_its_why_names(short_tmp: Path) -> None:
    config = write_config(
        short_tmp / "night.toml",
        "\n".join([
            "[league]", 'name = "night"', "table_size = 2", f'results = "{short_tmp / "night.sqlite"}"',
            "[time]", "startup_ms = 20000",
            "[[bots]]", 'name = "dies"', f'command = ["python", "{BOTS / "dies_at_start_bot.py"}"]',
            "[[bots]]", 'name = "random"', f'command = ["python", "{BOTS.parents[2] / "sample_bots" / "python" / "random_bot.py"}"]',
            "[[bots]]", 'name = "random2"', f'command = ["python", "{BOTS.parents[2] / "sample_bots" / "python" / "random_bot.py"}"]',
        ]) + "\n",  # two bots that start: the league is played (referee/league/preflight.py)
    )  # fmt: skip
    assert run_referee("run", str(config), "--no-live").returncode == 0
    shown = run_referee("faults", str(short_tmp / "night.sqlite"))
    why = re.search(r"log (\S+\.log)", shown.stdout)
    log = re.search(r"^\s*log:\s+(\S+)", shown.stdout, re.MULTILINE)
    assert why and log, shown.stdout
    assert why.group(1) == log.group(1), shown.stdout
