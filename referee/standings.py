"""Standings: a pure fold of game records (DESIGN.md §7).

Per bot: games, wins, win % (0-100), mean placement, points, an OpenSkill rating (see
:mod:`referee.ratings`), faults by kind, decision time (median and p95 in ms), and the
withdrawn and remote flags. **Points**: in each game, 1 for every opponent the bot
outlasted (a better placement), 1/2 for every opponent placed equal (rules.md R21).

**Ranking**: points (descending), then wins, then rating ordinal (rounded to 9 decimals,
so float noise between equal records never decides), then name (ascending); the rank is
the 1-based row number, so every row has its own rank.

The standings are a function of the *set* of records: records are de-duplicated by
game id and sorted by (fixture, game id) before anything is summed or rated, so an
interrupted and resumed league gives the same standings as an uninterrupted one.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.ratings import rate_games
from referee.records import FAULT_KINDS, FaultKind, GameRecord

CSV_HEADER: tuple[str, ...] = (
    "rank", "bot", "games", "wins", "win_pct", "mean_placement", "points", "points_per_game",
    "mu", "sigma", "ordinal", *(f"faults_{kind}" for kind in FAULT_KINDS), "median_ms", "p95_ms", "withdrawn", "remote",
)  # fmt: skip


@dataclass(frozen=True)
class StandingsRow:
    """One bot's line. ``faults`` maps every kind of ``FAULT_KINDS`` to a count;
    ``median_ms``/``p95_ms`` are None when the bot answered no decision."""

    rank: int
    bot: str
    games: int
    wins: int
    win_pct: float  # 0-100
    mean_placement: float  # 0.0 without games
    points: float
    mu: float
    sigma: float
    ordinal: float
    faults: dict[FaultKind, int]
    median_ms: float | None
    p95_ms: float | None
    withdrawn: bool = False
    remote: bool = False

    @property
    def points_per_game(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def fault_total(self) -> int:
        return sum(self.faults.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "bot": self.bot,
            "games": self.games,
            "wins": self.wins,
            "win_pct": self.win_pct,
            "mean_placement": self.mean_placement,
            "points": self.points,
            "points_per_game": self.points_per_game,
            "rating": {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal},
            "faults": dict(self.faults),
            "decision_ms": {"median": self.median_ms, "p95": self.p95_ms},
            "withdrawn": self.withdrawn,
            "remote": self.remote,
        }

    def csv_row(self) -> list[str]:
        numbers = [self.win_pct, self.mean_placement, self.points, self.points_per_game, self.mu, self.sigma, self.ordinal]
        times = ["" if value is None else f"{value:.3f}" for value in (self.median_ms, self.p95_ms)]
        return [
            str(self.rank), self.bot, str(self.games), str(self.wins), *(f"{value:.4f}".rstrip("0").rstrip(".") for value in numbers),
            *(str(self.faults[kind]) for kind in FAULT_KINDS), *times, str(self.withdrawn).lower(), str(self.remote).lower(),
        ]  # fmt: skip


@dataclass(frozen=True)
class Standings:
    """Rows sorted by rank, the number of games, and the head-to-head table
    (``head_to_head[(a, b)] = (times a outlasted b, ties half; games they met)``)."""

    rows: tuple[StandingsRow, ...]
    games: int
    head_to_head: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)

    def row(self, bot: str) -> StandingsRow:
        """The row of ``bot``; KeyError when it has none."""
        for row in self.rows:
            if row.bot == bot:
                return row
        raise KeyError(bot)

    def to_json(self) -> dict[str, Any]:
        """JSON-able: ``{"games", "ranking", "rows": [...], "head_to_head": [{"bot", "opponent", "outlasted", "met"}]}``."""
        return {
            "games": self.games,
            "ranking": ["points", "wins", "ordinal", "bot"],
            "rows": [row.to_json() for row in self.rows],
            "head_to_head": [
                {"bot": a, "opponent": b, "outlasted": outlasted, "met": met}
                for (a, b), (outlasted, met) in sorted(self.head_to_head.items())
            ],
        }

    def csv_rows(self) -> list[list[str]]:
        """The header (:data:`CSV_HEADER`) then one row per bot, all text."""
        return [list(CSV_HEADER), *(row.csv_row() for row in self.rows)]


def canonical_records(records: Iterable[GameRecord]) -> list[GameRecord]:
    """The records de-duplicated by game id and sorted by (fixture, game id)."""
    unique = {record.game_id: record for record in records}
    return sorted(unique.values(), key=lambda record: (record.fixture, record.game_id))


@dataclass(frozen=True, slots=True)
class _Played:
    """What the standings need of one game: its record without decks, rounds and
    actions (``times[i]``: the ms of a decision the bot at seat ``time_seats[i]`` answered)."""

    game_id: str
    fixture: int
    seats: tuple[str, ...]
    placements: tuple[int, ...]
    winner: int | None
    withdrawn: tuple[bool, ...]
    faults: tuple[tuple[str, FaultKind], ...]
    times: array[float]
    time_seats: bytes


def _played(record: GameRecord, shared: dict[Any, Any]) -> _Played:
    """The summary of ``record``; equal names and tuples are stored once, in ``shared``."""

    def one(value: Any) -> Any:
        return shared.setdefault(value, value)

    answered = [(action.seat, action.ms) for action in record.actions if action.ms is not None]
    return _Played(
        record.game_id,
        record.fixture,
        one(tuple(one(name) for name in record.seats)),
        one(tuple(record.placements)),
        record.winner,
        one(tuple(record.withdrawn)),
        tuple((one(fault.bot), fault.kind) for fault in record.faults),
        array("d", (ms for _, ms in answered)),
        bytes(seat for seat, _ in answered),
    )


def _canonical_games(records: Iterable[GameRecord]) -> list[_Played]:
    """:func:`canonical_records`, keeping only a small summary of each game (a few hundred
    bytes): the records may stream from the store and are never all in memory at once."""
    shared: dict[Any, Any] = {}
    unique = {record.game_id: _played(record, shared) for record in records}
    return sorted(unique.values(), key=lambda game: (game.fixture, game.game_id))


def _outlasted(mine: int, theirs: int) -> float:
    """1 if placement ``mine`` beats ``theirs`` (lower is better), 1/2 if equal, else 0."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def p95(values: Sequence[float]) -> float:
    """The 95th percentile by nearest rank (a value of ``values``, which must be non-empty)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def head_to_head(records: Iterable[GameRecord]) -> dict[tuple[str, str], tuple[float, int]]:
    """For every ordered pair (a, b) of bots that met: (how often a outlasted b, ties
    counting 1/2; games they met). ``outlasted[a, b] + outlasted[b, a] == met``."""
    return _head_to_head(_canonical_games(records))


def _head_to_head(games: Iterable[_Played]) -> dict[tuple[str, str], tuple[float, int]]:
    table: dict[tuple[str, str], tuple[float, int]] = {}
    for record in games:
        for seat, bot in enumerate(record.seats):
            for other, opponent in enumerate(record.seats):
                if other == seat or opponent == bot:
                    continue
                won, met = table.get((bot, opponent), (0.0, 0))
                table[(bot, opponent)] = (won + _outlasted(record.placements[seat], record.placements[other]), met + 1)
    return table


@dataclass
class _Tally:
    games: int = 0
    wins: int = 0
    placements: int = 0
    points: float = 0.0
    faults: dict[FaultKind, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    times: array[float] = field(default_factory=lambda: array("d"))
    withdrawn: bool = False


def compute_standings(
    records: Iterable[GameRecord],
    bots: Sequence[str] | None = None,
    remote: Collection[str] = (),
    withdrawn: Collection[str] = (),
) -> Standings:
    """Standings of ``records`` (see the module doc for points and ranking).

    ``bots`` lists bots to show even without games (every bot seen in a record is shown
    too); ``remote`` names bots given by address; ``withdrawn`` names bots the league
    withdrew (a bot is also withdrawn when a record marks its seat withdrawn).
    """
    games = _canonical_games(records)
    tallies: dict[str, _Tally] = {name: _Tally() for name in bots or ()}
    for record in games:
        for seat, bot in enumerate(record.seats):
            tally = tallies.setdefault(bot, _Tally())
            tally.games += 1
            tally.wins += record.winner == seat
            tally.placements += record.placements[seat]
            tally.points += sum(
                _outlasted(record.placements[seat], theirs) for other, theirs in enumerate(record.placements) if other != seat
            )
            if seat < len(record.withdrawn) and record.withdrawn[seat]:
                tally.withdrawn = True
        for bot, kind in record.faults:
            tallies.setdefault(bot, _Tally()).faults[kind] += 1
        for seat, ms in zip(record.time_seats, record.times):
            tallies[record.seats[seat]].times.append(ms)
    ratings = rate_games(((record.seats, record.placements) for record in games), bots=tallies)
    rows = [
        StandingsRow(
            rank=0,
            bot=name,
            games=tally.games,
            wins=tally.wins,
            win_pct=100.0 * tally.wins / tally.games if tally.games else 0.0,
            mean_placement=tally.placements / tally.games if tally.games else 0.0,
            points=tally.points,
            mu=ratings[name].mu,
            sigma=ratings[name].sigma,
            ordinal=ratings[name].ordinal,
            faults=tally.faults,
            median_ms=statistics.median(tally.times) if tally.times else None,
            p95_ms=p95(tally.times) if tally.times else None,
            withdrawn=tally.withdrawn or name in withdrawn,
            remote=name in remote,
        )
        for name, tally in tallies.items()
    ]
    rows.sort(key=lambda row: (-row.points, -row.wins, -round(row.ordinal, 9), row.bot))
    ranked = tuple(replace(row, rank=rank) for rank, row in enumerate(rows, start=1))
    return Standings(rows=ranked, games=len(games), head_to_head=_head_to_head(games))
