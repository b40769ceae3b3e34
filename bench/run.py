"""``make bench``: run B1-B13 (and B4T with ``--base-tree``) (each its own process, its variants interleaved), then write
``BENCHMARKS.md`` with the machine, the date, every figure as median [min–max] over the
repetitions, the targets met or missed, and the analysis in ``bench/NOTES.md``.

    python bench/run.py                 # everything, 5 repetitions (~10 minutes)
    python bench/run.py --only B3 B5    # some of them (BENCHMARKS.md keeps the others' last figures)
    python bench/run.py --quick         # a smoke run: fewer iterations, 2 repetitions
    python bench/run.py --report-only   # rewrite BENCHMARKS.md from the last figures (after editing NOTES.md)
    python bench/run.py --only B4T --base-tree ../base   # two trees: this one against a base checkout (its own .venv)
    python bench/run.py --only B7 --b7-leagues 200   # the full simulation of the standings (long)
    python bench/run.py --only B7 --b7-leagues 200 --b7-args "--stop-leagues 20 --max-rounds 300"
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
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

BENCHES: dict[str, tuple[str, str, int]] = {  # script, title, repetitions multiplier (cheap, noisy ones run more)
    "B1": ("b1_floor.py", "B1 floor: one unary Decide round trip", 1),
    "B2": ("b2_overhead.py", "B2 referee overhead", 1),
    "B3": ("b3_engine.py", "B3 engine", 2),
    "B4": ("b4_throughput.py", "B4 throughput", 1),
    "B5": ("b5_startup.py", "B5 start-up", 2),
    "B6": ("b6_memory.py", "B6 memory", 1),
    "B7": ("b7_standings.py", "B7 standings: simulated class-size leagues (engine only)", 1),
    "B8": ("b8_cluster.py", "B8 cluster overhead", 1),
    "B9": ("b9_export.py", "B9 export: a 420-game class league as a static site", 1),
    "B10": ("b10_futex.py", "B10 shared futex waits under bubblewrap: answered by the referee (fairly), or refused", 1),
    "B11": ("b11_idle_processes.py", "B11 bot processes the deal rule keeps: a 30-bot league, and in a memory limit", 1),
    "B12": ("b12_load.py", "B12 load: a league beside a CPU hog, and Ctrl-C under it", 1),
    "B13": ("b13_standings_update.py", "B13 standings kept as games finish: the cost of a game, and of a look", 1),
    "B14": ("b14_class.py", "B14 class: 30 Python strategy bots, a movement league night, and where its wall time goes", 1),
    "B4T": ("b4_throughput.py", "B4 two trees: the working tree against a base checkout, interleaved (concurrency 4)", 1),
    "B4TK": ("b4_throughput.py", "B4 two trees, Python bot-kit bots (the random sample: Play where the kit speaks it)", 1),
    "B4TG": ("b4_throughput.py", "B4 two trees, Go sample bots", 1),
}
TWO_TREES = {"B4T", "B4TK", "B4TG"}  # run only with --base-tree
WITH_BASE = {"B4T", "B4TK", "B4TG", "B14"}  # given --base-tree when it is set
BOTS_OF = {"B4TK": "kit", "B4TG": "go"}  # the two-trees B4 runs' bots (b4_throughput.py --bots)
B7_LEAGUES: int | None = None  # --b7-leagues: leagues per B7 figure (the script's small default otherwise)
B7_ARGS: list[str] = []  # --b7-args: more options for bench/b7_standings.py
BASE_TREE: str | None = None  # --base-tree: the base checkout of the two-trees benchmarks
OUT = common.ROOT / "BENCHMARKS.md"
RESULTS = common.ROOT / "bench" / "results.json"  # the last figures of each benchmark (kept for --only)
NOTES = common.ROOT / "bench" / "NOTES.md"


@dataclass(frozen=True)
class Target:
    """``check`` judges a figure by its median; ``limit``, when given, is the bound it is
    compared with, so a [min–max] range on both sides of it can be called out."""

    bench: str
    text: str
    key: str
    check: Callable[[Figure], bool]
    shown: Callable[[Figure], str]
    limit: float | None = None

    def verdict(self, figure: Figure) -> str:
        met = self.check(figure)
        word = "yes" if met else "**no**"
        if self.limit is not None and min(figure.values) < self.limit < max(figure.values):
            word += " (the range straddles the target: within noise)"
        return word


def _median(figure: Figure) -> str:
    return figure.text()


TARGETS = (
    Target("B4", "concurrency 4 ≥ 1.9 × concurrency 1", "ratio_4_1", lambda f: f.median >= 1.9, _median, 1.9),
    Target("B4", "concurrency 8 not below 4", "ratio_8_4", lambda f: f.median >= 1.0, _median, 1.0),
    Target("B4", "timeouts 0 (move_ms = 200, instant bots)", "timeouts", lambda f: max(f.values) == 0, lambda f: f"{max(f.values):.4f} (worst repetition)"),
    Target("B4", "referee CPU per decision, live display ≤ 1.1 × null reporter", "live_over_null_c4", lambda f: f.median <= 1.1, _median, 1.1),
    Target("B4TK", "kit bots, live display: games/s ≥ 1.8 × the base tree's (interleaved)", "ratio_live", lambda f: f.median >= 1.8, _median, 1.8),
    Target("B4T", "referee CPU per decision, live display ≤ 1.1 × null reporter (working tree)", "tree_live_over_null", lambda f: f.median <= 1.1, _median, 1.1),
    Target("B4", "bot processes started inside the measured window: 0", "starts_in_window", lambda f: max(f.values) == 0, lambda f: f"{max(f.values):.0f} (worst run)"),
    Target("B14", "class league: games/s ≥ 1.5 × the base tree's (interleaved, start-up included)", "ratio", lambda f: f.median >= 1.5, _median, 1.5),
    Target("B14", "class's command, 900 games: last game → final standings on the terminal ≤ 5 s", "command_end_gap", lambda f: f.median <= 5, _median, 5),
    Target("B14", "class's command: the groups tell apart no pair against the tiers' order", "command_wrong_way", lambda f: max(f.values) == 0, lambda f: f"{max(f.values):.0f} (worst repetition)"),
    Target("B13", "standings: cost of a finished game at 10,000 ≤ 1.2 × at 100", "ratio", lambda f: f.median <= 1.2, _median, 1.2),
    Target("B2", "referee ≤ 1.10 × the rotating floor (secondary)", "overhead", lambda f: f.median <= 1.10, _median, 1.10),
    Target("B3", "engine ≥ 2.5 × OpenSpiel's decisions/s", "ratio", lambda f: f.median >= 2.5, _median, 2.5),
    Target("B5", "sandboxed ≤ plain + 10 ms", "bwrap_extra", lambda f: f.median <= 10, _median, 10),
    Target("B5", "plain ≤ 1.05 × the import baseline", "plain_over_baseline", lambda f: f.median <= 1.05, _median, 1.05),
    Target("B6", "RSS at 5,000 games ≤ 1.1 × RSS at 100 games", "ratio", lambda f: f.median <= 1.1, _median, 1.1),
    Target("B7", "95% intervals of strength hold the true value ≥ 93% (identical bots)", "coverage_identical", lambda f: f.median >= 93, _median),
    Target("B7", "95% intervals of strength hold the true value ≥ 93% (4 tiers)", "coverage_tiers", lambda f: f.median >= 93, _median),
    Target("B7", "rank sets hold every true rank at once in ≥ 95% of leagues (identical bots)", "sets_identical", lambda f: f.median >= 95, _median),
    Target("B7", "rank sets hold every true rank at once in ≥ 95% of leagues (4 tiers)", "sets_tiers", lambda f: f.median >= 95, _median),
    Target("B7", "rank sets hold every true rank at once in ≥ 95% of leagues (lesson)", "sets_lesson", lambda f: f.median >= 95, _median),
    Target("B7", "lesson: pairs of truly different strategies separated ≥ 3 × today's method", "lesson_pairs_ratio", lambda f: f.median >= 3, _median, 3),
    Target("B7", "lesson: Spearman with the true strengths, strength above points per game (mean gain over the same leagues)", "lesson_spearman_gain_mean", lambda f: f.median > 0, lambda f: f"{f.median:+.4f}"),
    Target("B7", "league stop (places 1), identical bots: false separation ≤ 5% of leagues", "identical_stop1_wrong", lambda f: f.median <= 5, _median, 5),
    Target("B7", "league stop (places 3), identical bots: false separation ≤ 5% of leagues", "identical_stop3_wrong", lambda f: f.median <= 5, _median, 5),
    Target("B7", "lesson, 900 games: the groups tell apart ≥ 150 pairs of truly different bots (median per league)", "lesson_groups_right", lambda f: f.median >= 150, _median, 150),
    Target("B7", "lesson, 900 games: the groups' false-discovery proportion, mean over leagues ≤ 5%", "lesson_groups_fdp", lambda f: f.median <= 5, _median, 5),
    Target("B7", "lesson, 900 games: no bot placed above a truly stronger one by the groups in ≥ 95% of leagues", "lesson_groups_ordered", lambda f: f.median >= 95, _median, 95),
    Target("B7", "identical bots, 900 games: a false separation by the groups in ≤ 5% of leagues", "identical_groups_false_leagues", lambda f: f.median <= 5, _median, 5),
    Target("B7", "two equal bots at #1/#2 are called level in ≥ 90% of long enough leagues", "twins_level", lambda f: f.median >= 90, _median, 90),
    Target("B7", "no verdict line names more games than 10 × the games played", "verdict_words", lambda f: max(f.values) <= 10, lambda f: f"{max(f.values):.2f} ×", 10),
    Target("B7", "class: tiers ~0.1 pts/g apart ordered by the sequential stop ≤ 10 min at the B4 rate", "class_stop_minutes", lambda f: f.median <= 10, _median, 10),
    Target("B7", "class: even one z-test of one pair 0.1 pts/g apart ≤ 10 min (lower bound)", "class_bound_minutes", lambda f: f.median <= 10, _median, 10),
    Target("B8", "Dask ≤ 5 % more wall time per game than local, same concurrency", "overhead", lambda f: f.median <= 5, _median, 5),
    Target("B9", "export of a 420-game league ≤ 15 MB", "megabytes", lambda f: f.median <= 15, _median, 15),
    Target("B9", "export of a 420-game league ≤ 20 s", "seconds", lambda f: f.median <= 20, _median, 20),
    Target("B10", "an idle Java bot ≤ 0.1 s of CPU in 10 s (waits answered)", "idle_java_notified", lambda f: f.median <= 0.1, _median, 0.1),
    Target("B10", "a 12 × 60-thread flood adds ≤ 60 ms (3 ticks) to another bot's shared-wait p95", "waits_p95_extra_flood_12x60", lambda f: f.median <= 60, _median, 60),
    Target("B11", "a 30-bot league completes in a 2 GiB memory cgroup (a container)", "limit_completed", lambda f: min(f.values) == 1, lambda f: f"{min(f.values):.0f} (worst repetition)"),
    Target("B12", "beside 4 busy loops per core: 0 faults of the sample bots", "innocent_faults_load", lambda f: max(f.values) == 0, lambda f: f"{max(f.values):.0f} (worst repetition)"),
    Target("B12", "beside 4 busy loops per core: the sleepers' timeouts as on a quiet machine", "sleeper_change", lambda f: max(map(abs, f.values)) == 0, lambda f: f"{max(map(abs, f.values)):.0f} (worst repetition)"),
    Target("B12", "beside 4 busy loops per core: no sleeper's decision said to be held up by the machine", "sleeper_held_up_load", lambda f: max(f.values) == 0, lambda f: f"{max(f.values):.0f} (worst repetition)"),
    Target("B12", "Ctrl-C ends the run within 2 s beside 4 busy loops per core", "stop_s", lambda f: max(f.values) <= 2, lambda f: f"{f.text()} (worst {max(f.values):.2f} s)", 2),
)


def run_bench(key: str, reps: int, quick: bool, sandbox: str) -> dict[str, object]:
    script, title, times = BENCHES[key]
    reps *= times
    print(f"== {title} ({script})", flush=True)
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="kws-bench-") as tmp:
        out = Path(tmp) / "out.json"
        mode = "auto" if key == "B12" and sandbox == "none" else sandbox  # B12 is a league night: bots sandboxed as usual
        argv = [sys.executable, str(common.ROOT / "bench" / script), "--reps", str(reps), "--json", str(out), "--sandbox", mode]
        if quick:
            argv.append("--quick")
        if key == "B7" and B7_LEAGUES:
            argv += ["--leagues", str(B7_LEAGUES)]
        if key == "B7":
            argv += B7_ARGS
        if key in WITH_BASE and BASE_TREE is not None:
            argv += ["--base-tree", BASE_TREE]
        if key in BOTS_OF:
            argv += ["--bots", BOTS_OF[key]]
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
    payload["run"] = f"{started}, load average {load} at its start"
    return payload


CONCURRENCY = (1, 2, 4, 8)


def _ceiling(results: dict[str, dict[str, object]], concurrency: int, cores: int) -> float | None:
    """Decisions/s at ``concurrency`` if the referee cost nothing beyond a raw gRPC call
    (B1): one call at a time takes the floor's round trip; several at once are bounded by
    the machine's cores over the CPU of a call (referee side + bot side). None when B1
    lacks a figure."""
    b1 = common.load_figures(results["B1"]) if "B1" in results else {}
    if "grpc_rotating" not in b1:
        return None
    latency_bound = concurrency * 1e6 / b1["grpc_rotating"].median
    if concurrency == 1:
        return latency_bound
    if "bot_cpu" not in b1 or "grpc_cpu" not in b1:
        return None
    return min(latency_bound, cores * 1e6 / (b1["grpc_cpu"].median + b1["bot_cpu"].median))


def _headline(results: dict[str, dict[str, object]], cores: int) -> list[str]:
    """The B4 table: league games/s per concurrency, next to the ceiling from the gRPC floor."""
    lines = ["## Headline: B4 league throughput (instant bots, games of 4 seats)", ""]
    payload = results.get("B4")
    if not payload:
        return lines + ["Not measured yet."]
    b4 = common.load_figures(payload)
    per_game = common.ratio_values(b4["decisions_c1"].values, b4["games_c1"].values)
    decisions_per_game = Figure("d", "", "", per_game).median
    lines += [
        "| concurrency | games/s (median [min–max]) | decisions/s | ceiling from the gRPC floor: decisions/s (games/s) | measured ÷ ceiling |",
        "|---|---|---|---|---|",
    ]
    for concurrency in CONCURRENCY:
        games, decisions = b4.get(f"games_c{concurrency}"), b4.get(f"decisions_c{concurrency}")
        if games is None or decisions is None:
            continue
        ceiling = _ceiling(results, concurrency, cores)
        shown = "n/a" if ceiling is None else f"{ceiling:,.0f} ({ceiling / decisions_per_game:.1f})"
        share = "n/a" if ceiling is None else f"{decisions.median / ceiling:.2f}"
        lines.append(f"| {concurrency} | {games.text()} | {decisions.text()} | {shown} | {share} |")
    lines += [
        "",
        f"The ceiling is what the league would reach if the referee cost nothing beyond a raw gRPC call (B1): "
        f"at concurrency 1 one call at a time, each taking the floor's round trip; at 2 and more, the "
        f"{cores} cores divided by the CPU of one call (referee side + bot side), or the round trips "
        f"of that many calls at once, whichever is lower. Games/s = decisions/s ÷ {decisions_per_game:.0f} "
        f"decisions per game. The machine's other load shows in the [min–max] ranges.",
    ]
    return lines


def _table(figures: list[Figure]) -> list[str]:
    lines = ["| figure | median [min–max] |", "|---|---|"]
    for figure in figures:
        note = f" ({figure.note})" if figure.note else ""
        lines.append(f"| {figure.label}{note} | {figure.text()} |")
    return lines


def _extras(payload: dict[str, object]) -> str:
    skip = {"bench", "figures", "seconds", "reps", "quick", "machine", "run"}
    parts = [f"{key} {value}" for key, value in payload.items() if key not in skip]
    parts.append(f"{payload['reps']} repetitions{' (quick)' if payload.get('quick') else ''}, {payload['seconds']} s")
    if "run" in payload:
        parts.append(f"run {payload['run']}")
    return "; ".join(parts)


def _measured(results: dict[str, dict[str, object]]) -> str:
    """When the figures were measured: ``first – last`` benchmark start, from their payloads."""
    runs = sorted(str(payload["run"]).split(",")[0] for payload in results.values() if "run" in payload)
    if not runs:
        return ""
    return runs[0] if runs[0] == runs[-1] else f"{runs[0]} – {runs[-1][11:]}" if runs[0][:10] == runs[-1][:10] else f"{runs[0]} – {runs[-1]}"


def b7_minutes_at_b4_rate(results: dict[str, dict[str, object]]) -> None:
    """Rewrite B7's minutes (each ``X_minutes`` figure: its ``X_games`` figure ÷ the B4 rate)
    at the B4 figure in ``results`` (concurrency 4, median), so that re-measuring B4 needs no
    new simulation: the games are what B7 measures, the minutes only a unit."""
    b4, b7 = results.get("B4"), results.get("B7")
    if not b4 or not b7:
        return
    rates = {figure["key"]: figure for figure in b4["figures"]}  # type: ignore[index, union-attr]
    if "games_c4" not in rates:
        return
    rate = statistics.median(rates["games_c4"]["values"])
    games = {figure["key"]: figure for figure in b7["figures"]}  # type: ignore[index, union-attr]
    for key, figure in games.items():
        source = games.get(key.removesuffix("_minutes") + "_games") if key.endswith("_minutes") else None
        if source is not None:
            figure["values"] = [value / rate / 60 for value in source["values"]]
            figure["label"] = re.sub(r"\([0-9.]+ games/s\)", f"({rate:.1f} games/s)", figure["label"])
    b7["b4_games_per_s"] = round(rate, 2)
    b7["b4_source"] = f"B4 concurrency 4 median ({b4.get('run', 'undated')}); minutes rewritten from it by run.py"


def write_report(
    results: dict[str, dict[str, object]], machine: dict[str, str], started: datetime, loads: tuple[str, str] | None
) -> None:
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
        f"- date: {_measured(results) or started.strftime('%Y-%m-%d %H:%M UTC')}"
        + (f"; tree at commit {commit} (with local changes, if any)" if commit else ""),
        *(f"- {key}: {value}" for key, value in machine.items()),
        *(
            [f"- load average at start / end: {loads[0]} / {loads[1]} (other work on the machine shows here)"]
            if loads
            else []
        ),
        "- each benchmark's start and the load average then are under its table",
        "",
        *_headline(results, int(machine.get("cores") or os.cpu_count() or 1)),
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
        lines.append(f"| {target.bench} | {target.text} | {target.shown(figure)} | {target.verdict(figure)} |")
    for key, (_, title, _) in BENCHES.items():
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
    parser.add_argument("--report-only", action="store_true", help="run nothing: rewrite BENCHMARKS.md from bench/results.json")
    parser.add_argument("--sandbox", default="none", choices=("none", "rlimits", "bwrap", "auto"),
                        help="sandbox mode of the bots in B1, B2, B4, B6 (default none: the referee's own cost)")
    parser.add_argument("--b7-leagues", type=int, default=None, help="B7: simulated leagues per figure (default small; 200 for the full figures)")
    parser.add_argument("--base-tree", default=None, help="two trees (B4T): a checkout of the base, with its own .venv, run interleaved with this one")
    parser.add_argument("--b7-args", default="", help='B7: more options for bench/b7_standings.py, e.g. "--stop-leagues 20 --max-rounds 300"')
    args = parser.parse_args()
    global B7_LEAGUES, B7_ARGS, BASE_TREE
    B7_LEAGUES = args.b7_leagues
    BASE_TREE = args.base_tree
    B7_ARGS = shlex.split(args.b7_args)
    reps = args.reps or (2 if args.quick else 5)
    started = datetime.now(timezone.utc)
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    keep = args.only or args.report_only
    results: dict[str, dict[str, object]] = json.loads(RESULTS.read_text()) if RESULTS.exists() and keep else {}
    began = time.perf_counter()
    if args.only and TWO_TREES & set(args.only) and not BASE_TREE:
        parser.error("B4T needs --base-tree PATH")
    for key in [] if args.report_only else args.only or [key for key in BENCHES if key not in TWO_TREES or BASE_TREE]:
        results[key] = run_bench(key, reps, args.quick, args.sandbox)
        RESULTS.write_text(json.dumps(results, indent=1))
    if "B4" in results and "B7" in results:
        b7_minutes_at_b4_rate(results)
        RESULTS.write_text(json.dumps(results, indent=1))
    load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    machine = common.machine()
    machine.pop("load average (1, 5, 15 min)", None)
    write_report(results, machine, started, None if args.report_only else (load_start, load_end))
    print(f"wrote {OUT.relative_to(common.ROOT)} in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
