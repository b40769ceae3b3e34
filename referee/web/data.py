"""What the web pages show, read from a results store: progress, standings, head-to-head,
per-bot summaries, games.

:class:`SiteData` reads the store once per new game count (a league that is running adds
games; the site then rebuilds its snapshot) and is shared by ``referee serve``,
``referee run --serve`` and ``referee export --format html``.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from referee.game.records import FAULT_KINDS, FaultKind, GameRecord
from referee.game.rules import Rules
from referee.results.store import ResultsStore, StoredFault
from referee.standings.table import Standings, compute_standings

RECENT_GAMES = 20  # finish times the ETA is measured over
MIN_REBUILD_S = 1.0  # the live site's standings are at most this much older than the store


def slug(text: str) -> str:
    """A file-name-safe form of a bot name or game id: ASCII letters, digits, ``.``, ``_``,
    ``-`` kept; anything else replaced, plus a short hash so two names never collide."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip(".") or "_"
    if safe == text:
        return text
    return f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


@dataclass(frozen=True)
class Progress:
    """Games played of ``total`` (None when the schedule is unknown), seconds elapsed since
    the first game of this run started (None before any), the estimated seconds left (None
    when unknown), and whether every scheduled game is stored."""

    done: int
    total: int | None
    elapsed_s: float | None
    eta_s: float | None
    league: str
    starting: bool = False  # bots are starting: no game finished yet in this run

    @property
    def finished(self) -> bool:
        return self.total is not None and self.done >= self.total

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 0.0


def estimate(done: int, total: int | None, finish_times: Sequence[float], now: float) -> float | None:
    """Seconds left to play ``total - done`` games at the rate of the last
    :data:`RECENT_GAMES` finish times (POSIX seconds, ascending); None when fewer than two
    games finished or the total is unknown; 0 when done. Pure."""
    if total is None:
        return None
    if done >= total:
        return 0.0
    recent = list(finish_times[-RECENT_GAMES:])
    if len(recent) < 2 or recent[-1] <= recent[0]:
        return None
    per_game = (recent[-1] - recent[0]) / (len(recent) - 1)
    return max(0.0, (total - done) * per_game - max(0.0, now - recent[-1]))


@dataclass(frozen=True)
class BotGame:
    """One game of a bot: its seat, placement and points in it, and its faults there."""

    game_id: str
    fixture: int
    seat: int
    seats: tuple[str, ...]
    placement: int
    points: float
    faults: int

    @property
    def opponents(self) -> list[str]:
        return [name for other, name in enumerate(self.seats) if other != self.seat]


@dataclass
class BotSummary:
    """What a bot's page shows beyond its standings row."""

    name: str
    games: list[BotGame] = field(default_factory=list)
    decision_ms: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Snapshot:
    """Everything the pages need for one game count."""

    count: int
    standings: Standings
    bots: dict[str, BotSummary]
    games: list[tuple[str, int, tuple[str, ...], tuple[int, ...], int]]  # id, fixture, seats, placements, faults
    rules: str | None


def scheduled_total(config_text: str) -> int | None:
    """How many games the league config stored with the results schedules (None when the
    text cannot be read as a config: the site then shows the count without a total)."""
    try:
        from referee.config.schema import FileModel
        from referee.schedule.make import make_fixtures

        model = FileModel.model_validate(tomllib.loads(config_text))
        league = model.league
        fixtures = make_fixtures(
            [bot.name for bot in model.bots],
            league.table_size,
            league.deals,
            league.seed,
            format=league.format,
            challengers=tuple(league.challengers),
        )
        return len(fixtures)
    except Exception:  # noqa: BLE001 - any config the current schema rejects: no total
        return None


class SiteData:
    """A results store seen by the web site. Thread-safe: pages are built in worker threads.

    ``total`` is the number of scheduled games (default: read from the stored config);
    ``bots`` lists every bot of the league, shown even before its first game.
    """

    def __init__(
        self,
        store: ResultsStore,
        *,
        total: int | None = None,
        bots: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
        starting: Callable[[], bool] | None = None,
    ) -> None:
        self.store = store
        meta = store.meta()
        self.league = meta.get("league", "")
        self.total = total if total is not None else scheduled_total(meta.get("config_text", ""))
        self._bots = tuple(bots) or _config_bots(meta.get("config_text", ""))
        self.move_ms = _config_move_ms(meta.get("config_text", ""))
        self._clock = clock
        self._starting = starting
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._built_at = 0.0
        self._build_cost = 0.0

    def count(self) -> int:
        return self.store.game_count()

    def progress(self) -> Progress:
        done = self.store.game_count()
        times = self.store.finish_times()
        now = self._clock()
        starting = self._starting() if self._starting is not None else False
        return Progress(
            done=done,
            total=self.total,
            elapsed_s=((times[-1] if self.total is not None and done >= self.total else now) - times[0]) if times else None,
            eta_s=estimate(done, self.total, times, now),
            league=self.league,
            starting=starting,
        )

    def snapshot(self) -> Snapshot:
        """The pages' data for the games stored now. Rebuilt when the count changed, but at
        most every :data:`MIN_REBUILD_S` seconds and never more than a fifth of the time (a
        rebuild reads every record: it must not slow down a league that is running)."""
        with self._lock:
            count = self.store.game_count()
            now = time.monotonic()
            if self._snapshot is None or (
                self._snapshot.count != count and now - self._built_at >= max(MIN_REBUILD_S, 5 * self._build_cost)
            ):
                self._snapshot = self._build()
                self._built_at = now
                self._build_cost = time.monotonic() - now
            return self._snapshot

    def _build(self) -> Snapshot:
        bots: dict[str, BotSummary] = {name: BotSummary(name) for name in self._bots}
        games = []
        played = list(self.store.played_games())  # a tenth of the records: quick however long the league
        for game in played:
            faults = [0] * len(game.seats)
            for bot, _kind in game.faults:
                if bot in game.seats:
                    faults[game.seats.index(bot)] += 1
            games.append((game.game_id, game.fixture, game.seats, game.placements, len(game.faults)))
            for seat, name in enumerate(game.seats):
                summary = bots.setdefault(name, BotSummary(name))
                mine = game.placements[seat]
                points = sum(
                    1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                    for other, theirs in enumerate(game.placements)
                    if other != seat
                )
                summary.games.append(BotGame(game.game_id, game.fixture, seat, game.seats, mine, points, faults[seat]))
            for seat, ms in zip(game.time_seats, game.times):
                bots[game.seats[seat]].decision_ms.append(ms)
        standings = compute_standings(played, bots=list(bots))
        rules = self.store.rules()
        return Snapshot(count=len(games), standings=standings, bots=bots, games=games, rules=Rules.from_dict(rules).summary() if rules is not None else None)

    def first_fault_of_each_kind(self, bot: str) -> list[tuple[FaultKind, int, StoredFault]]:
        """(kind, how many, the first example) for every kind of fault ``bot`` made, in
        ``FAULT_KINDS`` order."""
        faults = self.store.faults(bot)
        result = []
        for kind in FAULT_KINDS:
            mine = [stored for stored in faults if stored.fault.kind == kind]
            if mine:
                result.append((kind, len(mine), mine[0]))
        return result

    def record(self, game_id: str) -> GameRecord:
        return self.store.record(game_id)


def _config_bots(config_text: str) -> tuple[str, ...]:
    try:
        data = tomllib.loads(config_text)
        return tuple(str(bot["name"]) for bot in data.get("bots", []) if "name" in bot)
    except (tomllib.TOMLDecodeError, TypeError, KeyError):
        return ()


def _config_move_ms(config_text: str) -> float | None:
    """The league's time per decision (``[time] move_ms``, the config's default when not
    given); None without a config or under the debug preset (no time limits)."""
    from referee.config.schema import TimeModel

    try:
        data = tomllib.loads(config_text)
    except tomllib.TOMLDecodeError:
        return None
    if not data or data.get("faults", {}).get("preset") == "debug":
        return None
    value = data.get("time", {}).get("move_ms", TimeModel().move_ms)
    return float(value) if isinstance(value, (int, float)) else None
