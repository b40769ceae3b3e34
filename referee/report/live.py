"""Progress while a league runs: a live rich display (progress bar + standings), or plain
lines with ``--no-live``. Implements ``referee.league.Reporter``."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from referee.records import GameRecord
from referee.report.standings_table import standings_table
from referee.schedule import Fixture
from referee.standings import Standings


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
    """A progress bar and the standings so far, refreshed as games finish."""

    def __init__(self, console: Console, total: int, done: int, standings: Callable[[], Standings]) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[last]}", markup=False),  # bot names are not markup
            console=console,
        )
        self.task = self.progress.add_task("games", total=total, completed=done, last="")
        self._standings = standings
        self._live = Live(console=console, refresh_per_second=4, transient=True)
        self._last_refresh = 0.0
        self._refresh_cost = 0.0

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
        self.progress.update(self.task, advance=1, last=placement_line(record))
        self._render()

    def _render(self, force: bool = False) -> None:
        now = time.monotonic()
        # Recomputing the standings costs time proportional to the games stored: refresh
        # at most every 0.5 s, and never spend more than a fifth of the time on it.
        if not force and now - self._last_refresh < max(0.5, 5 * self._refresh_cost):
            self._live.update(Group(self.progress, *self._tables), refresh=False)
            return
        started = time.monotonic()
        self._tables = [standings_table(self._standings(), title="Standings so far")]
        self._refresh_cost = time.monotonic() - started
        self._last_refresh = now
        self._live.update(Group(self.progress, *self._tables))

    _tables: Sequence[RenderableType] = ()


def make_reporter(
    console: Console, *, total: int, done: int, live: bool, standings: Callable[[], Standings]
) -> PlainReporter | LiveReporter:
    """Live display on a terminal unless ``live`` is False (``--no-live``) or the output is not a terminal."""
    if live and console.is_terminal:
        return LiveReporter(console, total, done, standings)
    return PlainReporter(console, total, done)
