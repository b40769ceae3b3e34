"""Progress while a league runs: a live rich display (the league's progress line, the
standings, the site's address), or plain lines with ``--no-live``. Implements
``referee.league.run.Reporter``; the numbers come from :mod:`referee.league.progress`, as
on the web site."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from referee.game.records import GameRecord
from referee.league.progress import LeagueProgress, clock_text, games_text, progress_parts
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


ESTIMATE_AFTER = 20  # games of this run before the plain output prints the time left

ProgressSource = Callable[[int], LeagueProgress]  # games stored -> the league's progress


def progress_line_text(progress: LeagueProgress) -> str:
    """``"125/~420 games · round 3 of ~7 · elapsed 2:05 · ETA ~6:00 (budget 10:00)"``."""
    return " · ".join(progress_parts(progress))


class PlainReporter:
    """One line per finished game, prefixed with the league's count (``[125/~420]``); a
    progress line (:func:`progress_line_text`) when a movement round starts, after
    :data:`ESTIMATE_AFTER` games of this run, and at every tenth of a fixed schedule."""

    def __init__(self, console: Console, progress: ProgressSource, done: int) -> None:
        self.console = console
        self.progress = progress
        self.done = done
        self._first = done
        self._tenth: int | None = None  # tenths of a fixed schedule played

    def __enter__(self) -> PlainReporter:
        self.console.print(STARTING, highlight=False, markup=False)
        return self

    def finishing(self) -> None:
        """Every game is played: say that the final standings come next."""
        self.console.print(ending_line(self.progress(self.done)), highlight=False, markup=False)

    def __exit__(self, *exc: object) -> None:
        return None

    def show_site(self, url: str) -> None:
        return None  # the site line was printed once; plain output never redraws

    def game_started(self, fixture: Fixture) -> None:
        return None

    def round_started(self, number: int) -> None:
        """A movement round began: say where the league is."""
        self._say("progress: ")

    def game_finished(self, record: GameRecord) -> None:
        self.done += 1
        progress = self.progress(self.done)
        count = games_text(progress).removesuffix(" games")
        self.console.print(f"[{count}] {placement_line(record)}", highlight=False, markup=False)
        tenth = int(10 * self.done / progress.planned) if progress.planned and progress.round is None else None
        crossed = tenth is not None and self._tenth is not None and self._tenth < tenth < 10
        if self.done - self._first == ESTIMATE_AFTER or crossed:
            self._say("progress: ", progress)
        self._tenth = tenth

    def _say(self, head: str, progress: LeagueProgress | None = None) -> None:
        progress = progress or self.progress(self.done)
        self.console.print(head + progress_line_text(progress), highlight=False, markup=False)


class ProgressLine:
    """The live progress line, read afresh at every redraw (the elapsed time moves between
    games): a bar, then :func:`progress_line_text`. The bar shrinks, then goes, before the
    text is cut."""

    def __init__(self, progress: Callable[[], LeagueProgress]) -> None:
        self.progress = progress

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        progress = self.progress()
        text = Text(progress_line_text(progress), no_wrap=True, overflow="ellipsis")
        room = options.max_width - text.cell_len - 7
        if room < 8:
            yield text
            return
        line = Table.grid(padding=(0, 1))
        line.add_row(
            Text("games", style="bold"),
            ProgressBar(total=100.0, completed=progress.percent, width=min(30, room), finished_style="green"),
            text,
        )
        yield line


class LiveReporter:
    """The league's progress line and the standings so far, fitted to the terminal
    (:func:`live_view`); the site's address on top (``--serve``); a status line while the
    bots start.

    A finished game only counts: the layout is built when the display redraws, at most
    every :data:`REDRAW_S` seconds whatever the league's size, and the standings are read
    at most as often, never taking more than :data:`STANDINGS_SHARE` of the time."""

    def __init__(self, console: Console, progress: ProgressSource, done: int, standings: Callable[[], Standings]) -> None:
        self.console = console
        self.done = done
        self.progress = ProgressLine(lambda: progress(self.done))
        self.site: str | None = None
        self._standings = standings
        self._read_at = -math.inf
        self._read_cost = 0.0
        self._last: GameRecord | None = None
        self._current: Standings | None = None
        self._ending = False
        self._live = Live(console=console, refresh_per_second=1 / REDRAW_S, transient=True, get_renderable=self.view)

    def __enter__(self) -> LiveReporter:
        self.read_standings(force=True)
        self._live.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._live.__exit__(exc_type, exc, tb)

    def show_site(self, url: str) -> None:
        """Keep ``url`` (the league's site) on screen while the league runs."""
        self.site = url
        self._live.refresh()

    def game_started(self, fixture: Fixture) -> None:
        return None

    def round_started(self, number: int) -> None:
        """A movement round began (the progress line reads the plan afresh)."""
        return None

    def game_finished(self, record: GameRecord) -> None:
        self.done += 1
        self._last = record
        self.read_standings()

    def finishing(self) -> None:
        """Every game is played: the status line says the final standings come next (the
        bots are stopped meanwhile), and the standings shown are the last ones."""
        self._ending = True
        self.read_standings(force=True)
        self._live.refresh()

    def view(self) -> RenderableType:
        """What the terminal shows now (fitted to its width and height); the display's
        redraw calls it."""
        last = "" if self._last is None else placement_line(self._last)
        status = ending_line(self.progress.progress()) if self._ending else None if last else STARTING
        return live_view(self.console, self.progress, self._current, status=status, last=last, site=self.site)

    def read_standings(self, force: bool = False) -> None:
        """Read the standings for the next redraw: at most every :data:`REDRAW_S`, and
        less often when reading them costs more than :data:`STANDINGS_SHARE` of the time."""
        now = time.monotonic()
        if not force and now - self._read_at < max(REDRAW_S, self._read_cost / STANDINGS_SHARE):
            return
        self._current = self._standings()
        self._read_cost = time.monotonic() - now
        self._read_at = now


REDRAW_S = 1.0  # the live display redraws (and builds its layout) at most this often
STANDINGS_SHARE = 0.1  # the most of the time spent reading the standings for it


STARTING = "starting the bots… (standings appear as games finish)"


def ending_line(progress: LeagueProgress) -> str:
    """``"all 900 games played in 9:24: writing the final standings…"`` (the league's play
    time, as every surface shows it)."""
    return f"all {progress.done:,} games played in {clock_text(progress.elapsed_s)}: writing the final standings…"


def site_line(url: str) -> Text:
    """``site: http://127.0.0.1:8000/`` as the live display keeps it on top."""
    text = Text("site: ", style="bold")
    text.append(url, style="bold cyan")
    return Text.assemble(text, no_wrap=True, overflow="ellipsis")


def live_view(
    console: Console, progress: RenderableType, standings: Standings | None, *, status: str | None, last: str, site: str | None = None
) -> RenderableType:
    """The live screen at the console's width and height, every line of it (what was
    printed before scrolls above it, so its top line is always its own): the site's
    address (``site``), the status line (while bots start, and once every game is played),
    the progress line, the last game (cut with … if long), then the standings with columns
    dropped to fit the width (a footnote names them) and, when there are more bots than
    lines, the top rows and a line saying how many more."""
    width, height = console.width, console.height
    top: list[RenderableType] = []
    if site:
        top.append(site_line(site))
    if status:
        top.append(Text(status, style="yellow", no_wrap=True, overflow="ellipsis"))
    top.append(progress)
    if last:
        top.append(Text(last, no_wrap=True, overflow="ellipsis"))
    if standings is None:
        return Group(*top)
    budget = height - sum(lines_of(console, part, width) for part in top)
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
    console: Console, *, progress: ProgressSource, done: int, live: bool, standings: Callable[[], Standings]
) -> PlainReporter | LiveReporter:
    """Live display on a terminal unless ``live`` is False (``--no-live``) or the output is
    not a terminal. ``progress(games stored)`` is the league's progress."""
    if live and console.is_terminal:
        return LiveReporter(console, progress, done, standings)
    return PlainReporter(console, progress, done)
