"""Fit a rich table to the terminal: columns drop in a given order, with a footnote, and
rows beyond the screen's height become one "N more" line.

Separate from what a table's columns are (:mod:`referee.report.standings_table` decides
those): a table is built whole, then :func:`fit_columns` removes the columns named in
``drop_order``, first named first, until its natural width fits. Columns not named never
drop, so a column that matters (rank, bot, points, faults) is never cut or squeezed.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


def natural_width(console: Console, table: Table, width: int) -> int:
    """The width ``table`` takes when nothing is squeezed (its widest rendering)."""
    return Measurement.get(console, console.options.update_width(max(width, 10_000)), table).maximum


def fit_columns(console: Console, table: Table, width: int, drop_order: Sequence[str]) -> list[str]:
    """Remove columns of ``table`` (by header text, in ``drop_order``) until its natural
    width is at most ``width``; returns the headers removed. Changes ``table`` in place."""
    dropped: list[str] = []
    for header in drop_order:
        if natural_width(console, table, width) <= width:
            break
        for index, column in enumerate(table.columns):
            if str(column.header) == header:
                del table.columns[index]
                dropped.append(header)
                break
    return dropped


def footnote(dropped: Sequence[str], width: int) -> Text | None:
    """``"not shown at 100 columns: ms p50/p95, rating (widen the terminal)"``."""
    if not dropped:
        return None
    return Text(f"not shown at {width} columns: {', '.join(dropped)} (widen the terminal)", style="dim")


def lines_of(console: Console, renderable: RenderableType, width: int) -> int:
    """How many terminal lines ``renderable`` takes at ``width``."""
    return len(console.render_lines(renderable, console.options.update(width=width, height=None), pad=False))
