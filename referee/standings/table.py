"""Standings: a pure fold of game records (docs/design.md §7).

Per bot: games, wins, win % (0-100), mean placement, points, points per game, an OpenSkill
rating (see :mod:`referee.standings.ratings`), faults by kind, decision time (median and p95
in ms), and the withdrawn and remote flags. **Points**: in each game, 1 for every opponent
the bot outlasted (a better placement), 1/2 for every opponent placed equal (rules.md R21).

**Ranking key: strength**, points per game adjusted for table-mates
(:mod:`referee.standings.strength`: what the bot would score against the rest of the field
met equally often; in a balanced round-robin it equals the points per game), rounded to 9
decimals so float noise never decides, descending; the one key, whatever the format, also in
the live table. Bots with exactly equal strength share a rank (``rank`` is 1 + the number of
bots strictly ahead) and are listed by name; bots without games come last. Each row has its
strength's 95% interval and its **rank range**, a confidence set for its rank simultaneous
over the whole table (:mod:`referee.standings.uncertainty`): ``1–3`` when the data cannot
tell it from the bots around it. Under the table, :mod:`referee.standings.verdicts` gives a
verdict for each place the league asks to decide. The OpenSkill rating is shown with its
uncertainty (mu ± sigma) but does not rank.

The standings are a function of the *set* of records (and of what the league's looks
decided): records are de-duplicated by game id and sorted by (fixture, game id) before
anything is summed, fitted or rated, so an interrupted and resumed league gives the same
standings as an uninterrupted one.

Cheap and expensive parts are separate: :func:`tally` folds games into per-bot tallies and
units; :func:`referee.standings.strength.fit_strengths`,
:func:`referee.standings.uncertainty.rank_sets` and
:func:`referee.standings.verdicts.pair_verdicts` read the units.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from referee.game.records import FAULT_KINDS, FaultKind, GameRecord
from referee.standings.groups import FDR, METHOD, Groups, class_groups, letters_text
from referee.standings.ownline import OwnLine, own_line
from referee.standings.ratings import Rating, rate_games
from referee.standings.strength import Strengths, Unit, fit_strengths
from referee.standings.uncertainty import CONFIDENCE, TIE, Interval, intervals, rank_sets
from referee.standings.verdicts import Sequential, Verdicts, pair_verdicts

CSV_HEADER: tuple[str, ...] = (
    "rank", "rank_best", "rank_worst", "group", "bot", "strength", "strength_low", "strength_high", "units", "points_per_game",
    "games", "wins", "win_pct", "mean_placement", "points",
    "mu", "sigma", "ordinal", *(f"faults_{kind}" for kind in FAULT_KINDS), "median_ms", "p95_ms", "withdrawn", "remote", "verdict",
)  # fmt: skip


def claims(confidence: float = CONFIDENCE, rate: float = FDR, method: str = METHOD) -> dict[str, str]:
    """What each claim of the standings means, in one sentence each (said once on every
    surface: under the terminal's table, on the web pages, in the JSON).

    >>> claims()["groups"]
    'groups: bots with no letter in common play differently; at most 1 in 20 such claims is wrong'
    """
    return {
        "place": "#: the place by strength, the ranking key (3= : a tie)",
        "groups": f"groups: bots with no letter in common play differently; at most 1 in {round(1 / rate)} such claims is wrong",
        "groups_method": f"the false-discovery rate ({rate:.0%}) is controlled over all pairs of bots ({method})",
        "rank_set": f"places possible: the places each bot may hold, for the whole table at once ({confidence:.0%})",
        "own_line": f"told apart: the bots the results tell apart from one bot, a claim for that bot alone ({confidence:.0%})",
    }


@dataclass(frozen=True)
class StandingsRow:
    """One bot's line. ``faults`` maps every kind of ``FAULT_KINDS`` to a count;
    ``median_ms``/``p95_ms`` are None when the bot answered no decision; ``strength`` is its
    adjusted strength with its interval (None without games); ``rank`` its place (None
    without games), ``tied`` when another bot shares it; ``rank_range`` its simultaneous
    rank set (None without games); ``group`` its letters (``""`` when in no test)."""

    rank: int | None
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
    rank_range: tuple[int, int] | None = None  # (best, worst) rank of the simultaneous rank set
    strength: Interval | None = None
    tied: bool = False
    group: str = ""

    @property
    def points_per_game(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def place_text(self) -> str:
        """``"3"``, ``"3="`` when tied, ``""`` without games."""
        if self.rank is None:
            return ""
        return f"{self.rank}=" if self.tied else str(self.rank)

    @property
    def group_text(self) -> str:
        """The row's letters as shown (``"b–e"`` for ``"bcde"``); ``"—"`` for a bot with
        games but too few units for the tests; ``""`` without games."""
        if self.strength is None:
            return ""
        return letters_text(self.group) if self.group else "—"

    @property
    def rank_text(self) -> str:
        """``"3"``, or ``"1–3"`` when the rank set holds ranks 1 to 3; ``""`` without games."""
        if self.rank_range is None:
            return ""
        best, worst = self.rank_range
        return str(best) if best == worst else f"{best}–{worst}"

    @property
    def fault_total(self) -> int:
        return sum(self.faults.values())

    def to_json(self) -> dict[str, Any]:
        strength = self.strength
        return {
            "rank": self.rank,
            "place": self.place_text,
            "rank_range": None if self.rank_range is None else list(self.rank_range),
            "group": self.group,
            "bot": self.bot,
            "strength": None if strength is None else {
                "estimate": strength.estimate, "interval": None if strength.low is None else [strength.low, strength.high], "units": strength.units,
            },
            "points_per_game": self.points_per_game,
            "games": self.games,
            "wins": self.wins,
            "win_pct": self.win_pct,
            "mean_placement": self.mean_placement,
            "points": self.points,
            "rating": {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal},
            "faults": dict(self.faults),
            "decision_ms": {"median": self.median_ms, "p95": self.p95_ms},
            "withdrawn": self.withdrawn,
            "remote": self.remote,
        }  # fmt: skip

    def csv_row(self, verdict: str = "") -> list[str]:
        strength = self.strength
        values = (None, None, None) if strength is None else (strength.estimate, strength.low, strength.high)
        numbers = [self.win_pct, self.mean_placement, self.points]
        rating = [self.mu, self.sigma, self.ordinal]
        times = ["" if value is None else f"{value:.3f}" for value in (self.median_ms, self.p95_ms)]
        return [
            "" if self.rank is None else str(self.rank), *(("", "") if self.rank_range is None else (str(value) for value in self.rank_range)), self.group, self.bot,
            *("" if value is None else _number(value) for value in values), str(0 if strength is None else strength.units),
            _number(self.points_per_game) if self.games else "", str(self.games), str(self.wins),
            *(_number(value) for value in numbers), *(_number(value) for value in rating),
            *(str(self.faults[kind]) for kind in FAULT_KINDS), *times, str(self.withdrawn).lower(), str(self.remote).lower(), verdict,
        ]  # fmt: skip


def _number(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Standings:
    """Rows sorted by rank, the number of games, the head-to-head table
    (``head_to_head[(a, b)] = (times a outlasted b, ties half; games they met)``), the
    verdicts on the places the league asks to decide, the ``confidence`` of the intervals,
    rank sets and own lines, the class's ``groups``, and the ``fit`` they come from (for
    :meth:`own_line`; not compared)."""

    rows: tuple[StandingsRow, ...]
    games: int
    head_to_head: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)
    verdicts: Verdicts = field(default_factory=Verdicts)
    confidence: float = CONFIDENCE
    groups: Groups = field(default_factory=lambda: Groups((), {}))
    fit: Strengths | None = field(default=None, compare=False, repr=False)

    def own_line(self, bot: str) -> OwnLine | None:
        """The own line of ``bot`` (:mod:`referee.standings.ownline`); None for a bot
        without games; KeyError for a bot not in the standings."""
        self.row(bot)
        if self.fit is None or bot not in self.fit.bots:
            return None
        return own_line(self.fit, bot, self.confidence)

    def claims(self) -> dict[str, str]:
        """:func:`claims` at these standings' confidence and rate."""
        return claims(self.confidence, self.groups.rate, self.groups.method)

    def row(self, bot: str) -> StandingsRow:
        """The row of ``bot``; KeyError when it has none."""
        for row in self.rows:
            if row.bot == bot:
                return row
        raise KeyError(bot)

    def to_json(self) -> dict[str, Any]:
        """JSON-able: ``{"games", "ranking", "confidence", "claims", "groups", "rows": [...],
        "verdicts": [...], "podium", "summary", "head_to_head": [{"bot", "opponent",
        "outlasted", "met"}]}`` (``groups``: the rate, method and pairs told apart)."""
        return {
            "games": self.games,
            "ranking": "strength",
            "confidence": self.confidence,
            "claims": self.claims(),
            "groups": {
                "rate": self.groups.rate, "method": self.groups.method, "apart": [list(pair) for pair in self.groups.apart],
                "lettered": bool(self.groups.letters),
            },
            "rows": [row.to_json() for row in self.rows],
            "verdicts": [pair.to_json() for pair in self.verdicts.pairs],
            "podium": [{"place": place, "bot": bot, "rank_range": list(sets)} for place, bot, sets in self.verdicts.podium],
            "summary": self.verdicts.summary,
            "head_to_head": [
                {"bot": a, "opponent": b, "outlasted": outlasted, "met": met}
                for (a, b), (outlasted, met) in sorted(self.head_to_head.items())
            ],
        }

    def csv_rows(self) -> list[list[str]]:
        """The header (:data:`CSV_HEADER`) then one row per bot, all text; ``verdict`` holds
        the verdict line on the row's bot and the next one where the league asks it."""
        lines = {pair.first: pair.text() for pair in self.verdicts.pairs}
        return [list(CSV_HEADER), *(row.csv_row(lines.get(row.bot, "")) for row in self.rows)]

    def head_to_head_csv_rows(self) -> list[list[str]]:
        """``bot, opponent, outlasted, met, share``: one row per ordered pair that met
        (``share`` = outlasted / met: how often the bot outlasted the opponent, ties 1/2)."""
        rows = [["bot", "opponent", "outlasted", "met", "share"]]
        for (a, b), (outlasted, met) in sorted(self.head_to_head.items()):
            rows.append([a, b, _number(outlasted), str(met), _number(outlasted / met) if met else ""])
        return rows


def canonical_records(records: Iterable[GameRecord]) -> list[GameRecord]:
    """The records de-duplicated by game id and sorted by (fixture, game id)."""
    unique = {record.game_id: record for record in records}
    return sorted(unique.values(), key=lambda record: (record.fixture, record.game_id))


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """What the standings need of one game: its record without decks, rounds and actions
    (``faults``: (bot, kind) per fault; ``times[i]``: the ms of a decision the bot at seat
    ``time_seats[i]`` answered). About a tenth of a record: the results store keeps one
    beside each record, so standings never parse whole records
    (``ResultsStore.played_games``)."""

    game_id: str
    fixture: int
    unit: tuple[int, tuple[str, ...]]  # (deal seed, the table's bots sorted): the rotations of one deal
    seats: tuple[str, ...]
    placements: tuple[int, ...]
    winner: int | None
    withdrawn: tuple[bool, ...]
    faults: tuple[tuple[str, FaultKind], ...]
    times: array[float]
    time_seats: bytes

    @classmethod
    def of(cls, record: GameRecord, shared: dict[Any, Any] | None = None) -> PlayedGame:
        """The summary of ``record``; equal names and tuples are stored once, in ``shared``."""
        pool: dict[Any, Any] = {} if shared is None else shared

        def one(value: Any) -> Any:
            return pool.setdefault(value, value)

        answered = [(action.seat, action.ms) for action in record.actions if action.ms is not None]
        return cls(
            record.game_id,
            record.fixture,
            (record.seed, one(tuple(sorted(one(name) for name in record.seats)))),
            one(tuple(one(name) for name in record.seats)),
            one(tuple(record.placements)),
            record.winner,
            one(tuple(record.withdrawn)),
            tuple((one(fault.bot), fault.kind) for fault in record.faults),
            array("d", (ms for _, ms in answered)),
            bytes(seat for seat, _ in answered),
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-able (the store keeps it as text; :meth:`from_json` reads it back)."""
        return {
            "game_id": self.game_id, "fixture": self.fixture, "seed": self.unit[0], "seats": list(self.seats),
            "placements": list(self.placements), "winner": self.winner, "withdrawn": list(self.withdrawn),
            "faults": [list(fault) for fault in self.faults], "times": self.times.tolist(), "time_seats": list(self.time_seats),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any], shared: dict[Any, Any] | None = None) -> PlayedGame:
        pool: dict[Any, Any] = {} if shared is None else shared

        def one(value: Any) -> Any:
            return pool.setdefault(value, value)

        seats = one(tuple(one(name) for name in data["seats"]))
        return cls(
            data["game_id"],
            int(data["fixture"]),
            (int(data["seed"]), one(tuple(sorted(seats)))),
            seats,
            one(tuple(data["placements"])),
            data["winner"],
            one(tuple(data["withdrawn"])),
            tuple((one(bot), kind) for bot, kind in data["faults"]),
            array("d", data["times"]),
            bytes(data["time_seats"]),
        )


def _canonical_games(games: Iterable[GameRecord | PlayedGame]) -> list[PlayedGame]:
    """:func:`canonical_records` of records or their summaries, keeping only a small summary
    of each game (a few hundred bytes): the records may stream from the store and are
    never all in memory at once."""
    shared: dict[Any, Any] = {}
    unique = {game.game_id: game if isinstance(game, PlayedGame) else PlayedGame.of(game, shared) for game in games}
    return sorted(unique.values(), key=lambda game: (game.fixture, game.game_id))


def _outlasted(mine: int, theirs: int) -> float:
    """1 if placement ``mine`` beats ``theirs`` (lower is better), 1/2 if equal, else 0."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def p95(values: Sequence[float]) -> float:
    """The 95th percentile by nearest rank (a value of ``values``, which must be non-empty).

    >>> p95(range(1, 101)), p95([12.0, 30.5, 8.25])
    (95, 30.5)
    """
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def head_to_head(records: Iterable[GameRecord | PlayedGame]) -> dict[tuple[str, str], tuple[float, int]]:
    """For every ordered pair (a, b) of bots that met: (how often a outlasted b, ties
    counting 1/2; games they met). ``outlasted[a, b] + outlasted[b, a] == met``.

    >>> from referee.game.records import GameRecord
    >>> def game(number, seats, placements):  # a finished game: what the standings read of it
    ...     return GameRecord(game_id=f"g{number}", league="demo", fixture=number, table=tuple(sorted(seats)), deal=0,
    ...                       rotation=0, seats=seats, rules={}, seed=number, first_dealer=0, decks=[], actions=[],
    ...                       faults=[], placements=placements, winner=placements.index(1), knocked_out_round=(),
    ...                       forfeited=())
    >>> games = [game(1, ("ann", "bo", "cy"), (1, 2, 3)), game(2, ("bo", "cy", "ann"), (2, 1, 2))]
    >>> table = head_to_head(games)
    >>> table[("ann", "bo")], table[("bo", "ann")]
    ((1.5, 2), (0.5, 2))
    """
    return _head_to_head(_canonical_games(records))


def _head_to_head(games: Iterable[PlayedGame]) -> dict[tuple[str, str], tuple[float, int]]:
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


@dataclass
class Tallies:
    """What the cheap fold of :func:`tally` keeps: per bot its tallies, per unit (a deal's
    rotations at one table: (deal seed, the table's bots sorted)) each bot's [points, games],
    and the head-to-head sums (``pairs[(a, b)] = [times a outlasted b, ties 1/2; games they
    met]``). Every sum is of halves, so exact in any order: folding the same games in any
    order gives equal tallies (up to the order of the dicts)."""

    bots: dict[str, _Tally] = field(default_factory=dict)
    units: dict[tuple[int, tuple[str, ...]], dict[str, list[float]]] = field(default_factory=dict)
    games: int = 0
    pairs: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def unit_list(self) -> list[Unit]:
        """The units in a canonical order (by key), for :func:`fit_strengths`."""
        return [Unit(key[1], {bot: (score[0], int(score[1])) for bot, score in scores.items()}) for key, scores in sorted(self.units.items())]

    def add(self, record: PlayedGame) -> None:
        """Fold one game in: O(seats^2), whatever the games already folded."""
        self.games += 1
        unit = self.units.setdefault(record.unit, {})
        placements = record.placements
        for seat, bot in enumerate(record.seats):
            mine = self.bots.setdefault(bot, _Tally())
            mine.games += 1
            mine.wins += record.winner == seat
            mine.placements += placements[seat]
            points = 0.0
            for other, theirs in enumerate(placements):
                if other == seat:
                    continue
                outlasted = _outlasted(placements[seat], theirs)
                points += outlasted
                opponent = record.seats[other]
                if opponent != bot:
                    pair = self.pairs.setdefault((bot, opponent), [0.0, 0])
                    pair[0] += outlasted
                    pair[1] += 1
            mine.points += points
            score = unit.setdefault(bot, [0.0, 0])
            score[0] += points
            score[1] += 1
            if seat < len(record.withdrawn) and record.withdrawn[seat]:
                mine.withdrawn = True
        for bot, kind in record.faults:
            self.bots.setdefault(bot, _Tally()).faults[kind] += 1
        for seat, ms in zip(record.time_seats, record.times):
            self.bots[record.seats[seat]].times.append(ms)

    def head_to_head(self) -> dict[tuple[str, str], tuple[float, int]]:
        """:func:`head_to_head` of the games folded in."""
        return {pair: (won, int(met)) for pair, (won, met) in self.pairs.items()}


def tally(games: Iterable[PlayedGame], bots: Sequence[str] = ()) -> Tallies:
    """Fold ``games`` (in canonical order) into :class:`Tallies`; ``bots`` listed even
    without games."""
    tallies = Tallies({name: _Tally() for name in bots})
    for record in games:
        tallies.add(record)
    return tallies


def compute_standings(
    records: Iterable[GameRecord | PlayedGame],
    bots: Sequence[str] | None = None,
    remote: Collection[str] = (),
    withdrawn: Collection[str] = (),
    confidence: float = CONFIDENCE,
    sequential: Sequential | None = None,
) -> Standings:
    """Standings of ``records`` (see the module doc for points and ranking): game records,
    or their summaries (:class:`PlayedGame`, as ``ResultsStore.played_games`` reads them).

    ``bots`` lists bots to show even without games (every bot seen in a record is shown
    too); ``remote`` names bots given by address; ``withdrawn`` names bots the league
    withdrew (a bot is also withdrawn when a record marks its seat withdrawn);
    ``confidence`` is that of the intervals and rank sets (0.95 by default);
    ``sequential`` the places to decide and what the league's looks decided (default: #1
    and #2, nothing kept).

    >>> from referee.game.records import GameRecord
    >>> def game(number, seats, placements):  # a finished game: what the standings read of it
    ...     return GameRecord(game_id=f"g{number}", league="demo", fixture=number, table=tuple(sorted(seats)), deal=0,
    ...                       rotation=0, seats=seats, rules={}, seed=number, first_dealer=0, decks=[], actions=[],
    ...                       faults=[], placements=placements, winner=placements.index(1), knocked_out_round=(),
    ...                       forfeited=())
    >>> games = [game(1, ("ann", "bo", "cy"), (1, 2, 3)), game(2, ("bo", "cy", "ann"), (2, 1, 2))]
    >>> standings = compute_standings(games)
    >>> [(row.rank, row.bot, row.points, row.games, row.rank_text) for row in standings.rows]
    [(1, 'ann', 2.5, 2, '1–3'), (2, 'cy', 2.0, 2, '1–3'), (3, 'bo', 1.5, 2, '1–3')]

    ann scored 2 in game 1 (it outlasted both) and 1/2 in game 2 (placed equal with bo);
    two games cannot tell three bots apart, so each rank range is 1–3.
    """
    games = _canonical_games(records)
    tallies = tally(games, bots or ())
    ratings = rate_games(((record.seats, record.placements) for record in games), bots=tallies.bots)
    return assemble(tallies, ratings, remote=remote, withdrawn=withdrawn, confidence=confidence, sequential=sequential)


def assemble(
    tallies: Tallies,
    ratings: Mapping[str, Rating],
    *,
    remote: Collection[str] = (),
    withdrawn: Collection[str] = (),
    confidence: float = CONFIDENCE,
    sequential: Sequential | None = None,
) -> Standings:
    """The standings of ``tallies`` with the ``ratings`` of their games (rated in canonical
    order): the expensive part, the fit of the strengths, their intervals, rank sets and
    verdicts, O(units + bots^2). The rows copy what they take of ``tallies``, which may
    go on folding games."""
    fit = fit_strengths(tallies.unit_list())
    rows = [_row(name, mine, ratings[name], name in remote, name in withdrawn) for name, mine in tallies.bots.items()]
    strengths = dict(zip(fit.bots, intervals(fit, confidence), strict=True))
    ranges = dict(zip(fit.bots, rank_sets(fit, confidence), strict=True))
    groups = class_groups(fit)
    rows = [
        replace(row, strength=strengths.get(row.bot), rank_range=ranges.get(row.bot), group=groups.letters.get(row.bot, ""))
        for row in rows
    ]
    rows.sort(key=_ranking_key)
    places = [None if row.strength is None else 1 + sum(_ranking_key(other)[:2] < _ranking_key(row)[:2] for other in rows) for row in rows]
    ranked = tuple(replace(row, rank=place, tied=place is not None and places.count(place) > 1) for row, place in zip(rows, places, strict=True))
    played = [row.bot for row in ranked if row.strength is not None]
    verdicts = pair_verdicts(fit, played, sequential or Sequential(), tallies.games)
    asked = min((sequential or Sequential()).separate + 1, len(played)) if verdicts.pairs else 0
    podium = tuple((place + 1, ranked[place].bot, ranked[place].rank_range or (0, 0)) for place in range(asked))
    verdicts = replace(verdicts, podium=podium)
    return Standings(
        rows=ranked, games=tallies.games, head_to_head=tallies.head_to_head(), verdicts=verdicts, confidence=confidence, groups=groups, fit=fit,
    )


def _row(name: str, mine: _Tally, rating: Any, remote: bool, withdrawn: bool) -> StandingsRow:
    return StandingsRow(
        rank=0,
        bot=name,
        games=mine.games,
        wins=mine.wins,
        win_pct=100.0 * mine.wins / mine.games if mine.games else 0.0,
        mean_placement=mine.placements / mine.games if mine.games else 0.0,
        points=mine.points,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        faults=dict(mine.faults),
        median_ms=_median(mine.times) if mine.times else None,
        p95_ms=_nearest_rank(mine.times, 0.95) if mine.times else None,
        withdrawn=mine.withdrawn or withdrawn,
        remote=remote,
    )


def _median(values: array[float]) -> float:
    """``statistics.median(values)``, by selection instead of a sort (a bot's decision times
    grow by ~80 a game)."""
    return float(np.median(np.frombuffer(values, dtype=np.float64)))


def _nearest_rank(values: array[float], share: float) -> float:
    """:func:`p95` (at ``share``) of a non-empty ``values``, by selection instead of a sort."""
    k = max(0, math.ceil(share * len(values)) - 1)
    return float(np.partition(np.frombuffer(values, dtype=np.float64), k)[k])


def _ranking_key(row: StandingsRow) -> tuple[bool, float, str]:
    """(no strength, -strength to 9 decimals, name): the ranking of the module doc."""
    return (row.strength is None, -round(row.strength.estimate, TIE) if row.strength else 0.0, row.bot)
