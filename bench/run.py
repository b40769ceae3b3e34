"""``make bench``: run B1-B6 (each its own process, its variants interleaved), then write
``BENCHMARKS.md`` with the machine, the date, every figure as median [min–max] over the
repetitions, the targets met or missed, and the analysis in ``bench/NOTES.md``.

    python bench/run.py                 # everything, 5 repetitions (~10 minutes)
    python bench/run.py --only B3 B5    # some of them (BENCHMARKS.md keeps the others' last figures)
    python bench/run.py --quick         # a smoke run: fewer iterations, 2 repetitions
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import common
from common import Figure

BENCHES: dict[str, tuple[str, str]] = {
    "B1": ("b1_floor.py", "B1 floor: one unary Decide round trip"),
    "B2": ("b2_overhead.py", "B2 referee overhead"),
    "B3": ("b3_engine.py", "B3 engine"),
    "B4": ("b4_throughput.py", "B4 throughput"),
    "B5": ("b5_startup.py", "B5 start-up"),
    "B6": ("b6_memory.py", "B6 memory"),
}
OUT = common.ROOT / "BENCHMARKS.md"
RESULTS = common.ROOT / "bench" / "results.json"  # the last figures of each benchmark (kept for --only)
NOTES = common.ROOT / "bench" / "NOTES.md"


@dataclass(frozen=True)
class Target:
    bench: str
    text: str
    key: str
    check: Callable[[Figure], bool]
    shown: Callable[[Figure], str]


def _median(figure: Figure) -> str:
    return figure.text()


TARGETS = (
    Target("B2", "referee ≤ 1.10 × the rotating floor", "overhead", lambda f: f.median <= 1.10, _median),
    Target("B2", "≤ 25 µs of referee CPU per decision (trio thread)", "thread_cpu_us", lambda f: f.median <= 25, _median),
    Target("B3", "engine ≥ 2.5 × OpenSpiel's decisions/s", "ratio", lambda f: f.median >= 2.5, _median),
    Target("B4", "concurrency 4 ≥ 1.9 × concurrency 1", "ratio_4_1", lambda f: f.median >= 1.9, _median),
    Target("B4", "concurrency 8 not below 4", "ratio_8_4", lambda f: f.median >= 1.0, _median),
    Target("B4", "timeouts 0 (move_ms = 200, instant bots)", "timeouts", lambda f: max(f.values) == 0, lambda f: f"{max(f.values):.4f} (worst repetition)"),
    Target("B5", "sandboxed ≤ plain + 10 ms", "bwrap_extra", lambda f: f.median <= 10, _median),
    Target("B5", "plain ≤ 1.05 × the import baseline", "plain_over_baseline", lambda f: f.median <= 1.05, _median),
    Target("B6", "RSS at 5,000 games ≤ 1.1 × RSS at 100 games", "ratio", lambda f: f.median <= 1.1, _median),
)


def run_bench(key: str, reps: int, quick: bool, sandbox: str) -> dict[str, object]:
    script, title = BENCHES[key]
    print(f"== {title} ({script})", flush=True)
    with tempfile.TemporaryDirectory(prefix="kws-bench-") as tmp:
        out = Path(tmp) / "out.json"
        argv = [sys.executable, str(common.ROOT / "bench" / script), "--reps", str(reps), "--json", str(out), "--sandbox", sandbox]
        if quick:
            argv.append("--quick")
        began = time.perf_counter()
        env = {**os.environ, "GRPC_VERBOSITY": os.environ.get("GRPC_VERBOSITY", "ERROR")}
        done = subprocess.run(argv, cwd=common.ROOT, env=env)
        elapsed = time.perf_counter() - began
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"{script} failed (exit {done.returncode})")
        payload: dict[str, object] = json.loads(out.read_text())
    payload["seconds"] = round(elapsed, 1)
    payload["reps"] = reps
    payload["quick"] = quick
    return payload


def _table(figures: list[Figure]) -> list[str]:
    lines = ["| figure | median [min–max] |", "|---|---|"]
    for figure in figures:
        note = f" ({figure.note})" if figure.note else ""
        lines.append(f"| {figure.label}{note} | {figure.text()} |")
    return lines


def _extras(payload: dict[str, object]) -> str:
    skip = {"bench", "figures", "seconds", "reps", "quick", "machine"}
    parts = [f"{key} {value}" for key, value in payload.items() if key not in skip]
    parts.append(f"{payload['reps']} repetitions{' (quick)' if payload.get('quick') else ''}, {payload['seconds']} s")
    return "; ".join(parts)


def write_report(results: dict[str, dict[str, object]], machine: dict[str, str], started: datetime, loads: tuple[str, str]) -> None:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=common.ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`python bench/run.py`); do not edit by hand: the analysis comes from `bench/NOTES.md`.",
        "Each figure is the median and [min–max] over the repetitions; within a benchmark the variants are",
        "interleaved (one repetition of each, then the next), and ratios are taken within a repetition.",
        "",
        f"- date: {started.strftime('%Y-%m-%d %H:%M UTC')}" + (f", tree at commit {commit} (with local changes, if any)" if commit else ""),
        *(f"- {key}: {value}" for key, value in machine.items()),
        f"- load average at start / end: {loads[0]} / {loads[1]} (other work on the machine shows here)",
        "",
        "## Targets",
        "",
        "| | target | measured (median [min–max]) | met |",
        "|---|---|---|---|",
    ]
    for target in TARGETS:
        payload = results.get(target.bench)
        figure = common.load_figures(payload).get(target.key) if payload else None
        if figure is None or not figure.values:
            lines.append(f"| {target.bench} | {target.text} | not measured | – |")
            continue
        lines.append(f"| {target.bench} | {target.text} | {target.shown(figure)} | {'yes' if target.check(figure) else '**no**'} |")
    for key, (_, title) in BENCHES.items():
        payload = results.get(key)
        lines += ["", f"## {title}", ""]
        if not payload:
            lines.append("Not measured yet.")
            continue
        lines += _table(list(common.load_figures(payload).values()))
        lines += ["", f"<sub>{_extras(payload)}</sub>"]
    if NOTES.exists():
        lines += ["", NOTES.read_text().strip()]
    OUT.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the benchmarks and write BENCHMARKS.md.")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per variant (default 5; 2 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer iterations and repetitions")
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHES), help="run only these benchmarks")
    parser.add_argument("--sandbox", default="none", choices=("none", "rlimits", "bwrap", "auto"),
                        help="sandbox mode of the bots in B1, B2, B4, B6 (default none: the referee's own cost)")
    args = parser.parse_args()
    reps = args.reps or (2 if args.quick else 5)
    started = datetime.now(timezone.utc)
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    results: dict[str, dict[str, object]] = json.loads(RESULTS.read_text()) if RESULTS.exists() and args.only else {}
    began = time.perf_counter()
    for key in args.only or BENCHES:
        results[key] = run_bench(key, reps, args.quick, args.sandbox)
        RESULTS.write_text(json.dumps(results, indent=1))
    load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    machine = common.machine()
    machine.pop("load average (1, 5, 15 min)", None)
    write_report(results, machine, started, (load_start, load_end))
    print(f"wrote {OUT.relative_to(common.ROOT)} in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
