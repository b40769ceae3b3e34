"""Plots for the web pages, drawn by matplotlib as inline SVG (no JavaScript, no files)."""

from __future__ import annotations

import io
import statistics
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # before any other matplotlib import: never a window

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "referee"  # the same SVG for the same data
matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: smaller, and the page's own font


def decision_time_svg(times_ms: Sequence[float], *, limit_ms: float | None = None) -> str:
    """A histogram of decision times (ms, log scale when they span more than a factor of
    20) as an ``<svg>`` element; ``limit_ms`` draws the time control as a red line.
    An empty string when there are no times."""
    if not times_ms:
        return ""
    figure = Figure(figsize=(6.4, 2.6), dpi=100)
    axes = figure.add_subplot()
    low = max(min(times_ms), 0.01)
    high = max(max(times_ms), low * 1.01)
    if high / low > 20:
        bins: Sequence[float] | int = [low * (high / low) ** (i / 30) for i in range(31)]
        axes.set_xscale("log")
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    else:
        bins = 30
    axes.hist(times_ms, bins=bins, color="#3b7dd8", edgecolor="white", linewidth=0.4)
    if limit_ms is not None and limit_ms > 0:
        axes.axvline(limit_ms, color="#c0392b", linewidth=1.2, label=f"time control {limit_ms:g} ms")
        axes.legend(loc="upper right", fontsize=8, frameon=False)
    axes.set_xlabel("decision time (ms)")
    axes.set_ylabel("decisions")
    axes.set_title(f"{len(times_ms)} decisions, median {statistics.median(times_ms):.1f} ms", fontsize=10)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    figure.subplots_adjust(left=0.1, right=0.97, top=0.88, bottom=0.2)  # fixed: tight_layout costs ~1 s a plot
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]

