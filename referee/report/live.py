"""Progress while a league runs: a live rich display (progress bar + standings), or plain
lines with ``--no-live``. Implements ``referee.league.run.Reporter``."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Column, Table
from rich.text import Text
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from referee.game.records import GameRecord
from referee.report.fit import fit_columns, footnote, lines_of
from referee.report.standings_table import DROP_ORDER, standings_table
from referee.schedule.fixture import Fixture
from referee.standings.table import Standings


def placement_line(record: GameRecord) -> str:
    """``t01-d0-r2: 1 heuristic, 2 random, 3= rand-2, 3= other`` plus fault counts."""
    order = sorted(range(len(record.seats)), key=lambda seat: record.placements[seat])
    shared = {p for p in record.placements if list(record.placements).count(p) > 1}
    parts = [f"{record.placements[s]}{'=' if record.placements[s] in shared else ''} {record.seats[s]}" for s in order]
    line = f"{record.game_id}: " + ", ".join(parts)
    if record.faults:
        line += f"  [{len(record.faults)} fault{'s' if len(record.faults) != 1 else ''}]"
    return line


ESTIMATE_AFTER = 20  # games of this run before the plain output estimates the time left


class PlainReporter:
    """One line per finished game; after :data:`ESTIMATE_AFTER` games, one line with the
    estimated time left."""

    def __init__(self, console: Console, total: int, done: int) -> None:
        self.console = console
        self.total = total
        self.done = done
        self._first = done
        self._started = time.monotonic()

    def schedule_grew(self, total: int) -> None:
        """A budgeted league started a round: ``total`` games so far planned (the time
        left is the budget's, so no estimate is printed)."""
        self.total = max(total, self.total)
        self._first = -ESTIMATE_AFTER

    def __enter__(self) -> PlainReporter:
        self.console.print(STARTING, highlight=False, markup=False)
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def game_started(self, fixture: Fixture) -> None:
        return None

    def game_finished(self, record: GameRecord) -> None:
        self.done += 1
        self.console.print(f"[{self.done}/{self.total}] {placement_line(record)}", highlight=False, markup=False)
        if self.done - self._first == ESTIMATE_AFTER and self.total > self.done:
            rate = ESTIMATE_AFTER / max(1e-9, time.monotonic() - self._started)
            left = (self.total - self.done) / rate
            self.console.print(f"about {left / 60:.1f} min left for {self.total - self.done:,} games at {rate:.1f} games/s", highlight=False)


class LiveReporter:
    """A progress bar and the standings so far, refreshed as games finish, fitted to the
    terminal (:func:`live_view`); a status line while the bots start."""

    def __init__(
        self, console: Console, total: int, done: int, standings: Callable[[], Standings], get_time: Callable[[], float] | None = None
    ) -> None:
        self.console = console
        self.progress = progress_bar(console, get_time)
        self.task = self.progress.add_task("games", total=total, completed=done)
        self._standings = standings
        self._live = Live(console=console, refresh_per_second=4, transient=True)
        self._last_refresh = 0.0
        self._refresh_cost = 0.0
        self._last = ""
        self._current: Standings | None = None

    def __enter__(self) -> LiveReporter:
        self._live.__enter__()
        self._render(force=True)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._live.__exit__(exc_type, exc, tb)

    def game_started(self, fixture: Fixture) -> None:
        return None

    def schedule_grew(self, total: int) -> None:
        """A budgeted league started a round: ``total`` games so far planned."""
        self.progress.update(self.task, total=total)

    def game_finished(self, record: GameRecord) -> None:
        self.progress.update(self.task, advance=1)
        self._last = placement_line(record)
        self._render()

    def view(self) -> RenderableType:
        """What the terminal shows now (fitted to its width and height)."""
        status = None if self._last else STARTING
        return live_view(self.console, self.progress, self._current, status=status, last=self._last)

    def _render(self, force: bool = False) -> None:
        now = time.monotonic()
        # Recomputing the standings costs time proportional to the games stored: refresh
        # at most every 0.5 s, and never spend more than a fifth of the time on it.
        if not force and now - self._last_refresh < max(0.5, 5 * self._refresh_cost):
            self._live.update(self.view(), refresh=False)
            return
        started = time.monotonic()
        self._current = self._standings()
        self._refresh_cost = time.monotonic() - started
        self._last_refresh = now
        self._live.update(self.view())


STARTING = "starting the bots… (standings appear as games finish)"


def progress_bar(console: Console, get_time: Callable[[], float] | None = None) -> Progress:
    """``games ━━━━ 12/840 elapsed 0:01:02 ETA 0:20:00``: fixed-width parts only, so a
    narrow terminal never cuts the count, the elapsed time or the ETA."""
    return Progress(
        TextColumn("[bold]games"),
        BarColumn(bar_width=30),
        MofNCompleteColumn(table_column=Column(no_wrap=True)),
        TextColumn("elapsed", table_column=Column(no_wrap=True)),
        TimeElapsedColumn(table_column=Column(no_wrap=True)),
        TextColumn("ETA", table_column=Column(no_wrap=True)),
        TimeRemainingColumn(table_column=Column(no_wrap=True)),
        console=console,
        get_time=get_time,
    )


def live_view(
    console: Console, progress: Progress, standings: Standings | None, *, status: str | None, last: str
) -> RenderableType:
    """The live screen at the console's width and height: the status line (while bots
    start), the progress line, the last game (cut with … if long), then the standings with
    columns dropped to fit the width (a footnote names them) and, when there are more bots
    than lines, the top rows and a line saying how many more."""
    width, height = console.width, console.height
    top: list[RenderableType] = []
    if status:
        top.append(Text(status, style="yellow", no_wrap=True, overflow="ellipsis"))
    top.append(progress)
    if last:
        top.append(Text(last, no_wrap=True, overflow="ellipsis"))
    if standings is None:
        return Group(*top)
    budget = height - 1 - sum(lines_of(console, part, width) for part in top)  # the last line stays free for the cursor
    shown = len(standings.rows)
    while True:
        table = fitted_standings(console, standings, width, rows=shown, title="Standings so far")
        excess = lines_of(console, table, width) - budget
        if excess <= 0 or shown <= 1:
            return Group(*top, table)
        shown = max(1, shown - excess - (1 if shown == len(standings.rows) else 0))


def fitted_standings(console: Console, standings: Standings, width: int, *, rows: int, title: str) -> Table:
    """The standings table with its first ``rows`` rows (then a "… N more" row), columns
    dropped in ``DROP_ORDER`` until it fits ``width``, and a footnote naming them."""
    hidden = max(0, len(standings.rows) - rows)
    table = standings_table(dataclasses.replace(standings, rows=standings.rows[:rows]) if hidden else standings, title=title)
    assert isinstance(table, Table)
    if hidden:
        headers = [str(column.header) for column in table.columns]
        cells: list[RenderableType] = [""] * len(headers)
        cells[headers.index("bot") if "bot" in headers else min(1, len(cells) - 1)] = Text(f"… {hidden} more", style="bold yellow")
        table.add_row(*cells)
    dropped = fit_columns(console, table, width, DROP_ORDER)
    notes = [Text(str(table.caption))] if isinstance(table.caption, str) else [table.caption] if isinstance(table.caption, Text) else []
    notes += [note for note in (footnote(dropped, width),) if note is not None]
    if hidden:
        notes.append(Text(f"{hidden} bots below the screen: the full table is printed at the end", style="dim"))
    if notes:
        table.caption = Text("\n").join(notes)
        table.caption_justify = "left"
    return table


def make_reporter(
    console: Console, *, total: int, done: int, live: bool, standings: Callable[[], Standings]
) -> PlainReporter | LiveReporter:
    """Live display on a terminal unless ``live`` is False (``--no-live``) or the output is not a terminal."""
    if live and console.is_terminal:
        return LiveReporter(console, total, done, standings)
    return PlainReporter(console, total, done)
