"""What the web pages show, read from a results store: progress, standings, head-to-head,
per-bot summaries, games.

:class:`SiteData` reads the store once per new game count (a league that is running adds
games; the site then rebuilds its snapshot) and is shared by ``referee serve``,
``referee run --serve`` and ``referee export --format html``.

A game whose deal has a rotation still to play is *held back*: its hands, seat views and
record are neither served nor exported, nor its faults' evidence, nor a log of a bot process
that played it, until every rotation of the deal is stored (a student reading the site could
otherwise tell a bot the cards of the rotations to come, docs/design.md §6). The standings
count it at once. ``referee play``'s games (a student's own tests) are never held back.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import tomllib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from referee.game.records import GameRecord
from referee.game.rules import Rules
from referee.league.progress import LeagueProgress, Plan
from referee.league.runstate import stored_progress
from referee.results.store import ResultsStore
from referee.standings.table import PlayedGame, Standings, compute_standings
from referee.standings.verdicts import Sequential

LOG_GAME = re.compile(r"\[referee\] game (\S+): seat \d+")  # the line a bot's log gets for each game it plays
MIN_REBUILD_S = 1.0  # the live site's standings are at most this much older than the store


def slug(text: str) -> str:
    """A file-name-safe form of a bot name or game id: ASCII letters, digits, ``.``, ``_``,
    ``-`` kept; anything else replaced, plus a short hash so two names never collide."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip(".") or "_"
    if safe == text:
        return text
    return f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


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
    held_back: frozenset[str] = frozenset()  # games of deals with a rotation still to play
    shown: frozenset[str] = frozenset()  # the others: their hands, views, record and fault evidence may be shown


class HeldBack(KeyError):
    """A game of a deal that has a rotation still to play: not shown (see the module doc)."""


def held_back(games: Iterable[GameRecord | PlayedGame]) -> frozenset[str]:
    """The ids of ``games`` (records or their summaries) whose deal (its seed, at the same
    table) is not stored in every rotation, one per seat of its table. Pure."""
    played = [game if isinstance(game, PlayedGame) else PlayedGame.of(game) for game in games]
    rotations: dict[tuple[int, tuple[str, ...]], set[str]] = defaultdict(set)
    for game in played:
        rotations[game.unit].add(game.game_id)
    return frozenset(game.game_id for game in played if len(rotations[game.unit]) < len(game.seats))


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

    ``bots`` lists every bot of the league, shown even before its first game (default: the
    stored config's). ``clock``: POSIX seconds (the progress of a running league).
    """

    def __init__(
        self,
        store: ResultsStore,
        *,
        bots: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        meta = store.meta()
        self.league = meta.get("league", "")
        self._config_text = meta.get("config_text", "")
        self._legacy_plan: Plan | None = None
        self._bots = tuple(bots) or _config_bots(self._config_text)
        self.move_ms = _config_move_ms(self._config_text)
        self._own_games = meta.get("fingerprint") == "play"  # `referee play`: a student's own test games, nothing held back
        self._clock = clock
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._built_at = 0.0
        self._build_cost = 0.0

    def count(self) -> int:
        return self.store.game_count()

    def progress(self) -> LeagueProgress:
        """The league's progress as the referee running it computes it
        (:func:`referee.league.runstate.stored_progress`); for a results file from before
        runs were recorded, the games of the stored config's schedule and the time from the
        first to the last finished game."""
        meta = self.store.meta()
        done = self.store.game_count()
        found = stored_progress(meta, done, self._clock())
        if found is not None:
            return found
        if self._legacy_plan is None:
            self._legacy_plan = Plan(games=scheduled_total(self._config_text))
        times = self.store.finish_times()
        total = self._legacy_plan.games
        finished = total is not None and done >= total
        return LeagueProgress(
            done=done,
            planned=total,
            approximate=False,
            round=None,
            rounds=None,
            elapsed_s=(times[-1] - times[0]) if times else 0.0,
            eta_s=0.0 if finished else None,
            state="finished" if finished else "unknown",
            reason="schedule done" if finished else None,
        )

    def snapshot(self, *, now: bool = False) -> Snapshot:
        """The pages' data for the games stored now. Rebuilt when the count changed, but at
        most every :data:`MIN_REBUILD_S` seconds and never more than a fifth of the time (a
        rebuild reads every record: it must not slow down a league that is running);
        ``now``: whenever the count changed (the league is over: its final standings)."""
        with self._lock:
            count = self.store.game_count()
            clock = time.monotonic()
            if self._snapshot is None or (
                self._snapshot.count != count and (now or clock - self._built_at >= max(MIN_REBUILD_S, 5 * self._build_cost))
            ):
                self._snapshot = self._build()
                self._built_at = clock
                self._build_cost = time.monotonic() - clock
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
        standings = compute_standings(played, bots=list(bots), sequential=Sequential.from_text(self.store.meta().get("sequential")))
        closed = frozenset() if self._own_games else held_back(played)
        shown = frozenset(game_id for game_id, *_ in games) - closed
        rules = self.store.rules()
        return Snapshot(
            count=len(games), standings=standings, bots=bots, games=games,
            rules=Rules.from_dict(rules).summary() if rules is not None else None, held_back=closed, shown=shown,
        )  # fmt: skip

    def may_show(self, record: GameRecord) -> bool:
        """Whether the site may show ``record``'s hands, views and record (the viewer's
        page): the one place that decides it, for the live site and the export alike. Not
        while its deal has a rotation still to play, nor for a game stored after the
        snapshot (which knows nothing of its deal yet)."""
        return self.may_show_game(record.game_id)

    def may_show_game(self, game_id: str) -> bool:
        """:meth:`may_show` by game id (a fault's evidence, a log's games)."""
        return self._own_games or game_id in self.snapshot().shown  # a game stored since is not known yet

    def log_shown(self, text: str) -> bool:
        """Whether a bot's log (``text``) may be shown: every game it names (``[referee]
        game <id>: seat N``) may be (:meth:`may_show`)."""
        return all(self.may_show_game(game_id) for game_id in set(LOG_GAME.findall(text)))

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
