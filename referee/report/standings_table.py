"""The standings as a rich table with its verdict lines (docs/design.md §7), and the head-to-head table."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from referee.game.records import FAULT_KINDS
from referee.report.fit import fit_columns, footnote, natural_width
from referee.standings.table import Standings
from referee.standings.uncertainty import Interval

HEAD_TO_HEAD_MAX_BOTS = 12  # the terminal shows the head-to-head table up to this many bots


def verdict_lines(standings: Standings) -> list[str]:
    """The verdicts under the table: a verdict in words on each pair of places the league
    asks to decide, the places the podium's bots may hold, then the summary
    (:mod:`referee.standings.verdicts`); none before any game."""
    if standings.games == 0:
        return []
    return standings.verdicts.lines()


def note_lines(standings: Standings) -> list[str]:
    """Every line under the table: what the groups mean (once there are letters to read),
    then the verdicts."""
    groups = [standings.claims()["groups"]] if any(row.group for row in standings.rows) else []
    return [*groups, *verdict_lines(standings)]


# Headers of the columns a narrow terminal drops, first named first (referee.report.fit);
# the rank, bot, strength, points and faults never drop. A header that the table does not
# have is skipped ("rating μ±σ" is the rating's header where it shows sigma).
DROP_ORDER: tuple[str, ...] = ("ms p50/p95", "rating μ±σ", "win%", "mean place", "games", "wins", "pts/g", "95% interval")
NO_GAMES = "no games yet"


def standings_table(standings: Standings, *, title: str = "Standings", rules_line: str | None = None) -> RenderableType:
    """Place ("3", "3=" when exactly tied, blank without games), the class's groups
    (letters: bots with no letter in common are told apart; "—" until a bot has enough
    units), bot, strength (the ranking key: points per game adjusted for table-mates; "no
    games yet") and its interval ("—" until the bot has enough units), raw points per
    game, games, win %, mean placement, points, rating (mu ± sigma), faults by kind,
    decision times; under it the verdict lines, what the groups mean, and the rules line."""
    notes = [*note_lines(standings), *([rules_line] if rules_line else [])]
    table = Table(title=title, title_style="bold", caption="\n".join(notes) or None, caption_justify="left")
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("group", justify="left", style="bold magenta", no_wrap=True)
    table.add_column("bot", style="bold", no_wrap=True)
    table.add_column("strength", justify="right", style="bold cyan", no_wrap=True)
    table.add_column(f"{standings.confidence:.0%} interval", justify="right", no_wrap=True)
    table.add_column("pts/g", justify="right", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("win%", justify="right")
    table.add_column("mean place", justify="right")
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("rating μ±σ", justify="right", no_wrap=True)
    table.add_column("faults", justify="left", no_wrap=True)
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
            row.place_text,
            row.group_text,
            name,
            Text(NO_GAMES, style="dim") if row.strength is None else f"{row.strength.estimate:.2f}",
            interval_text(row.strength),
            f"{row.points_per_game:.2f}" if row.games else "-",
            str(row.games),
            f"{row.win_pct:.1f}",
            f"{row.mean_placement:.2f}" if row.games else "-",
            f"{row.points:g}",
            f"{row.mu:.1f}±{row.sigma:.1f}",
            Text(faults or "—", style="red" if faults else "dim"),
            times,
        )
    return table


def interval_text(strength: Interval | None) -> str:
    """``"1.42–1.98"``; "—" without enough units for an interval; "-" without games."""
    if strength is None:
        return "-"
    if strength.low is None or strength.high is None:
        return "—"
    return f"{strength.low:.2f}–{strength.high:.2f}"


def head_to_head_table(standings: Standings) -> RenderableType:
    """Rows and columns in ranking order; a cell is how often the row's bot outlasted the
    column's bot when they met (ties 1/2), as a share, with the games they met."""
    table = Table(title="Head to head: share of meetings the row's bot outlasted the column's", title_style="bold")
    names = [row.bot for row in standings.rows]
    table.add_column("", style="bold", no_wrap=True)
    for number in range(1, len(names) + 1):
        table.add_column(f"#{number}", justify="right")
    for number, bot in enumerate(names, start=1):
        cells: list[str | Text] = []
        for opponent in names:
            outlasted, met = standings.head_to_head.get((bot, opponent), (0.0, 0))
            if opponent == bot:
                cells.append(Text("·", style="dim"))
            elif not met:
                cells.append(Text("-", style="dim"))
            else:
                share = outlasted / met
                cells.append(Text(f"{share:.2f}", style="green" if share > 0.5 else "red" if share < 0.5 else ""))
        table.add_row(f"#{number} {bot}", *cells)
    return table


def print_standings(
    console: Console, standings: Standings, *, title: str, rules_line: str | None = None, head_to_head: bool | None = None
) -> None:
    """The standings table (on a narrow terminal the columns of ``DROP_ORDER`` drop, with a
    footnote; to a file or a pipe every column is written, as wide as it needs), then the
    head-to-head table when ``head_to_head`` is True, or by default when there are at most
    :data:`HEAD_TO_HEAD_MAX_BOTS` bots."""
    table = standings_table(standings, title=title, rules_line=rules_line)
    parts: list[RenderableType] = [table]
    width: int | None = None
    if isinstance(table, Table) and not console.is_terminal:
        width = max(console.width, natural_width(console, table, console.width))
    elif isinstance(table, Table):
        note = footnote(fit_columns(console, table, console.width, DROP_ORDER), console.width)
        if note is not None:
            parts.append(note)
    if head_to_head or (head_to_head is None and 2 <= len(standings.rows) <= HEAD_TO_HEAD_MAX_BOTS and standings.games):
        parts.append(head_to_head_table(standings))
    if width is None:
        console.print(Group(*parts))
        return
    kept, console.width = console.width, width  # print() never goes wider than the console
    try:
        console.print(Group(*parts))
    finally:
        console.width = kept
