"""Median start-up of a bot that imports grpc, per sandbox mode vs a plain subprocess.

Run: .venv/bin/python -m tests.sandbox.bench_startup [runs]. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.sandbox import SandboxSettings, bwrap_problem, launch

COMMAND = ["python", "-c", "import grpc"]


def _launched(mode: str, slot: int, bot_dir: Path, run_dir: Path) -> float:
    began = time.perf_counter()
    process = launch(COMMAND, name="bench", slot=slot, bot_dir=bot_dir, run_dir=run_dir,
                     settings=SandboxSettings(mode=mode))  # type: ignore[arg-type]
    while process.poll() is None:
        time.sleep(0.001)
    elapsed = time.perf_counter() - began
    assert process.poll() == 0, process.stderr_head()
    process.kill()
    return elapsed


def _plain() -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, *COMMAND[1:]], check=True)
    return time.perf_counter() - began


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    bot_dir = Path(tempfile.mkdtemp(prefix="kws-bench-", dir="/tmp"))
    bot_dir.chmod(0o755)
    run_dir = bot_dir / "run"
    modes = ["rlimits", "none"] + (["bwrap"] if bwrap_problem() is None else [])
    try:
        timings: dict[str, list[float]] = {"plain subprocess": [], **{mode: [] for mode in modes}}
        for i in range(runs):  # interleaved, so that drift in the machine's load hits all alike
            timings["plain subprocess"].append(_plain())
            for mode in modes:
                timings[mode].append(_launched(mode, 500 + i, bot_dir, run_dir))
    finally:
        shutil.rmtree(bot_dir, ignore_errors=True)
    for label, values in timings.items():
        print(f"{label:18} median {statistics.median(values) * 1000:7.1f} ms  "
              f"(min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f}, n={runs})")


if __name__ == "__main__":
    main()
