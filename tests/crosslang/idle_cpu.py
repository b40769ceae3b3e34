"""Start one bot under bubblewrap (``referee.sandbox.launch``), ask it Hello, then leave it
idle and count the CPU time its processes use. Run as a script, by whoever the referee runs
as (tests/crosslang/test_java_bot.py):

    python idle_cpu.py SECONDS BOT_DIR RUN_DIR -- COMMAND...

Prints one JSON object: ``cpu_s`` (user + system time of the bot's whole process tree over
SECONDS of wall time after Hello) and ``first_line`` (its log's first line)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import trio

from referee.sandbox import SandboxSettings, launch
from referee.transport.client import BotClient


def tree_cpu_s(root: int) -> float:
    """User + system CPU seconds of ``root`` (bubblewrap) and every process below it, with
    their reaped children's."""
    fields: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields[int(entry)] = stat[stat.rindex(")") + 2 :].split()
    below: dict[int, list[int]] = {}
    for pid, values in fields.items():
        below.setdefault(int(values[1]), []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in fields:
            total += sum(int(value) for value in fields[pid][11:15])  # utime stime cutime cstime, in ticks
        todo += below.get(pid, [])
    return total / os.sysconf("SC_CLK_TCK")


def main() -> None:
    seconds, bot_dir, run_dir = float(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1 :]
    process = launch(command, name="idle", slot=1, bot_dir=bot_dir, run_dir=run_dir, settings=SandboxSettings(mode="bwrap"))

    async def hello() -> None:
        address = await trio.to_thread.run_sync(process.wait_address, 120.0)
        client = BotClient(address, "idle")
        try:
            await client.hello(120.0)
        finally:
            client.close()

    try:
        trio.run(hello)
        before = tree_cpu_s(process.pid)
        time.sleep(seconds)
        used = tree_cpu_s(process.pid) - before
        first_line = process.log_path.read_text(errors="replace").splitlines()[0]
    finally:
        process.kill()
    print(json.dumps({"cpu_s": used, "first_line": first_line}))


if __name__ == "__main__":
    main()
