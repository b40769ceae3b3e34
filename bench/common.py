"""Shared helpers of the benchmarks: statistics, interleaving, machine facts, results.

Every benchmark script runs its variants interleaved (one repetition of every variant,
then the next repetition), so that drift in the machine's load hits all variants alike,
and reports the median and the [min-max] of the repetitions. Each script writes its
figures as JSON (``--json PATH``) for ``bench/run.py`` and prints a summary.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # this checkout: its results and report
# The referee measured: this checkout, or another one (``KWS_BENCH_TREE``, set by a "two
# trees" run, e.g. ``bench/b4_throughput.py --base-tree PATH``): its code, its bench bots.
CODE = Path(os.environ.get("KWS_BENCH_TREE") or ROOT).resolve()
BOTS = CODE / "bench" / "bots"
INSTANT_BOT = BOTS / "instant_bot.py"
RAW_ECHO = BOTS / "raw_echo.py"
SAMPLE_BOT = CODE / "sample_bots" / "python" / "random_bot.py"

if str(CODE) not in sys.path:  # run as `python bench/bN_x.py` from anywhere
    sys.path.insert(0, str(CODE))


@dataclass
class Figure:
    """One measured quantity: its repetitions, unit, and how a higher value reads."""

    key: str
    label: str
    unit: str
    values: list[float] = field(default_factory=list)
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else float("nan")

    def text(self, digits: int | None = None) -> str:
        """``median [min–max] unit``, numbers to ``digits`` decimals (auto when None)."""
        if not self.values:
            return "n/a"
        fmt = _fmt(digits)
        return f"{fmt(self.median)} [{fmt(min(self.values))}–{fmt(max(self.values))}] {self.unit}".rstrip()


def _fmt(digits: int | None) -> Callable[[float], str]:
    def fmt(value: float) -> str:
        if digits is not None:
            return f"{value:,.{digits}f}"
        magnitude = abs(value)
        if magnitude >= 100:
            return f"{value:,.0f}"
        if magnitude >= 10:
            return f"{value:.1f}"
        if magnitude >= 1:
            return f"{value:.2f}"
        return f"{value:.3f}"

    return fmt


def summary(figures: Sequence[Figure]) -> str:
    width = max(len(f.label) for f in figures)
    return "\n".join(f"  {f.label:<{width}}  {f.text()}" + (f"   ({f.note})" if f.note else "") for f in figures)


def ratio_values(top: Sequence[float], bottom: Sequence[float]) -> list[float]:
    """Per-repetition ratios (repetition i of ``top`` over repetition i of ``bottom``):
    both were measured in the same interleaved round, so the ratio cancels the drift."""
    return [a / b for a, b in zip(top, bottom, strict=True)]


def arguments(description: str, reps: int = 5, extra: Sequence[tuple[tuple[str, ...], dict[str, Any]]] = ()) -> argparse.Namespace:
    """The benchmarks' common options, and ``extra`` ones (``(flags, add_argument keywords)``)."""
    parser = argparse.ArgumentParser(description=description)
    for flags, options in extra:
        parser.add_argument(*flags, **options)
    parser.add_argument("--reps", type=int, default=reps, help=f"repetitions per variant (default {reps})")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer iterations per repetition (a smoke run)")
    parser.add_argument(
        "--sandbox", default="none", choices=("none", "rlimits", "bwrap", "auto"),
        help="sandbox mode of the bot processes (default none: the referee's own cost)",
    )
    args = parser.parse_args()
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    return args


def write_json(path: Path | None, bench: str, figures: Sequence[Figure], **extra: Any) -> None:
    print(f"{bench}:\n{summary(figures)}", flush=True)
    if path is None:
        return
    payload = {"bench": bench, "figures": [asdict(f) for f in figures], **extra}
    path.write_text(json.dumps(payload, indent=1))


def load_figures(payload: dict[str, Any]) -> dict[str, Figure]:
    return {f["key"]: Figure(**f) for f in payload["figures"]}


@contextmanager
def temp_dir(prefix: str) -> Iterator[Path]:
    """A fresh directory under /tmp, traversable by the sandbox's bot uids; removed after."""
    import shutil

    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def machine() -> dict[str, str]:
    """Facts about this machine for the report header."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    import grpc

    facts = {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "grpcio": grpc.__version__,
    }
    try:
        import google.protobuf

        facts["protobuf"] = google.protobuf.__version__
    except ImportError:
        pass
    try:
        facts["load average (1, 5, 15 min)"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass
    return facts


def tree_cpu_s(root: int) -> float:
    """User + system CPU seconds of process ``root`` and every process below it, with their
    reaped children's (psutil)."""
    import psutil

    total = 0.0
    try:
        tree = psutil.Process(root)
        for process in [tree, *tree.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                times = process.cpu_times()
                total += times.user + times.system + times.children_user + times.children_system
    except psutil.Error:
        pass
    return total
