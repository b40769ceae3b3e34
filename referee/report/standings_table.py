"""The standings as a rich table (DESIGN.md §7)."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from referee.records import FAULT_KINDS
from referee.report.fit import fit_columns, footnote
from referee.standings import Standings

# Headers of the columns a narrow terminal drops, first named first (referee.report.fit);
# the rank, bot, points, points per game and faults never drop. A header that the table
# does not have is skipped ("rating μ±σ" is the rating's header where it shows sigma).
DROP_ORDER: tuple[str, ...] = ("ms p50/p95", "rating μ±σ", "win%", "place", "games", "rating", "wins")


def standings_table(standings: Standings, *, title: str = "Standings", rules_line: str | None = None) -> RenderableType:
    """Rank, bot, games, wins, win %, mean placement ("place"), points, rating, faults by kind, decision times."""
    table = Table(title=title, title_style="bold", caption=rules_line, caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot", style="bold", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("wins", justify="right")
    table.add_column("win%", justify="right")
    table.add_column("place", justify="right", header_style="bold")
    table.add_column("points", justify="right", style="bold cyan")
    table.add_column("pts/g", justify="right")
    table.add_column("rating", justify="right")
    table.add_column("faults", justify="left")
    table.add_column("ms p50/p95", justify="right", no_wrap=True)
    for row in standings.rows:
        name = Text(row.bot)
        if row.withdrawn:
            name.append(" (withdrawn)", style="red")
        if row.remote:
            name.append(" (remote)", style="dim")
        faults = ", ".join(f"{kind} {row.faults[kind]}" for kind in FAULT_KINDS if row.faults.get(kind))
        times = "-" if row.median_ms is None else f"{row.median_ms:.1f}/{row.p95_ms:.1f}"
        table.add_row(
            str(row.rank),
            name,
            str(row.games),
            str(row.wins),
            f"{row.win_pct:.1f}",
            f"{row.mean_placement:.2f}" if row.games else "-",
            f"{row.points:g}",
            f"{row.points / row.games:.2f}" if row.games else "-",
            f"{row.ordinal:.1f}",
            Text(faults or "—", style="red" if faults else "dim"),
            times,
        )
    return table


def print_standings(console: Console, standings: Standings, *, title: str, rules_line: str | None = None) -> None:
    """Every row; on a narrow console the columns of ``DROP_ORDER`` drop, with a footnote."""
    table = standings_table(standings, title=title, rules_line=rules_line)
    if isinstance(table, Table):
        note = footnote(fit_columns(console, table, console.width, DROP_ORDER), console.width)
        if note is not None:
            console.print(Group(table, note))
            return
    console.print(Group(table))
