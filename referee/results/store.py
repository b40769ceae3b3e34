"""The SQLite results store of a league (docs/design.md §7): ``results/<league>.sqlite``.

WAL journal, ``synchronous=NORMAL``; one transaction per finished game, so an
interrupted league loses only the games in progress. Tables:

- ``meta(key, value)``: schema version, league name, config fingerprint, config text,
  created, and ``bot_code``: each bot's code fingerprint (JSON, :mod:`referee.league.botcode`);
  a movement league's progress (``rounds_started``, ``seconds_played``) and ``sequential``:
  the places its verdicts decide and what its looks decided (JSON,
  :class:`referee.standings.verdicts.Sequential`);
- ``games(game_id PK, fixture, finished_at, record)``: the full :class:`GameRecord` as JSON;
- ``summaries(game_id PK, fixture, summary)``: the tenth of each record the standings need
  (:class:`referee.standings.table.PlayedGame`), in a table of its own so that reading it
  never pages through the records (a file written before it was kept has none);
- ``faults(game_id, seat, bot, kind, decision, detail, request, answer, ms)``: one row per
  fault, for ``referee faults`` queries;
- ``overloads(game_id, seat, bot, decision, asks, detail)``: one row per late answer that
  was the machine's, not the bot's (not charged; docs/design.md §5). A file written
  before this table existed simply has none.

Calls are short (one small transaction), so calling them straight from the trio thread
is fine. The connection may be used from another thread, one call at a time.
"""

from __future__ import annotations

import difflib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee.errors import StoreError
from referee.game.records import FaultRecord, GameRecord
from referee.standings.table import PlayedGame

SCHEMA_VERSION = "1"
READ_BATCH = 200  # records read from the file at a time by ResultsStore.records()

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    fixture INTEGER NOT NULL,
    finished_at TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS summaries (
    game_id TEXT PRIMARY KEY REFERENCES games(game_id) ON DELETE CASCADE,
    fixture INTEGER NOT NULL,
    summary TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS faults (
    game_id TEXT NOT NULL REFERENCES games(game_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    kind TEXT NOT NULL,
    decision INTEGER,
    detail TEXT NOT NULL,
    request TEXT NOT NULL,
    answer TEXT NOT NULL,
    ms REAL
);
CREATE INDEX IF NOT EXISTS faults_by_bot ON faults(bot);
CREATE INDEX IF NOT EXISTS faults_by_game ON faults(game_id);
CREATE TABLE IF NOT EXISTS overloads (
    game_id TEXT NOT NULL REFERENCES games(game_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    decision INTEGER NOT NULL,
    asks INTEGER NOT NULL,
    detail TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class StoredFault:
    """A fault and the game it happened in."""

    game_id: str
    fault: FaultRecord


class ResultsStore:
    """One league's results file. Open with :meth:`open` (a league run) or
    :meth:`open_existing` (standings, replay, faults, export)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.Lock()

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        league: str,
        fingerprint: str,
        config_text: str,
        resume: bool,
        bot_code: Mapping[str, str] | None = None,
    ) -> ResultsStore:
        """Open or create ``path`` (and its folders) for a league run, readable by its
        owner only (0600; created folders 0700).

        ``bot_code``: bot name -> fingerprint of its code (:mod:`referee.league.botcode`), kept
        with the results. Raises StoreError when ``path`` already holds finished games and
        ``resume`` is False, when ``resume`` is True and the stored config fingerprint
        differs, or a bot's code fingerprint differs (naming the bot), or when ``path`` is
        not a results store.
        """
        try:
            _private_file(path)
        except OSError as error:
            raise StoreError(f"cannot create {path} or its folder: {error.strerror}") from None
        store = cls(path, _connect(path, create=True))
        try:
            store._prepare(league=league, fingerprint=fingerprint, config_text=config_text, resume=resume)
            if bot_code is not None:
                store._check_bot_code(dict(bot_code))
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_existing(cls, path: Path) -> ResultsStore:
        """Open an existing results file; StoreError when there is none."""
        if not path.is_file():
            raise StoreError(f"no results at {path}: run `referee run CONFIG` first")
        store = cls(path, _connect(path, create=False))
        try:
            store._check_is_store()
        except BaseException:
            store.close()
            raise
        return store

    @staticmethod
    def remove(path: Path) -> None:
        """Delete a results file with its ``-wal`` and ``-shm`` companions (a stale WAL
        must never meet a new database of the same name)."""
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    def _check_is_store(self) -> None:
        try:
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a results store ({error})") from None
        if not {"meta", "games", "faults"} <= tables:
            raise StoreError(f"{self.path} is not a results store of the referee (tables missing)")

    def _prepare(self, *, league: str, fingerprint: str, config_text: str, resume: bool) -> None:
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            with self._db:
                self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a results store ({error}): choose another results file") from None
        meta = self.meta()
        played = self.game_count()
        if played and not resume:
            raise StoreError(
                f"{self.path} already holds {played} games of league '{meta.get('league', '?')}': "
                "use --resume to continue, or remove the file"
            )
        if played and meta.get("fingerprint") != fingerprint:
            raise StoreError(
                f"config changed since the games in {self.path} were played "
                f"({_first_change(str(meta.get('config_text', '')), config_text)}): "
                "restore the config, or use another results file"
            )
        if not played:
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            values = {"schema_version": SCHEMA_VERSION, "league": league, "fingerprint": fingerprint, "config_text": config_text, "created": now}
            with self._lock, self._db:
                self._db.execute("DELETE FROM meta")  # no progress of an earlier league survives
                self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.items())

    def _check_bot_code(self, now: dict[str, str]) -> None:
        """Refuse to resume a league whose bots' code changed; remember it otherwise."""
        stored = json.loads(self.meta().get("bot_code", "{}"))
        played = self.game_count()
        changed = [name for name, code in now.items() if played and name in stored and stored[name] != code]
        if changed:
            names = ", ".join(f"'{name}'" for name in changed)
            raise StoreError(
                f"the code of bot {names} changed since the games in {self.path} were played: "
                "restore its files to finish this league, or start a new one (remove the file or use --results)"
            )
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('bot_code', ?)", (json.dumps({**stored, **now}, sort_keys=True),))

    def restart_counts(self) -> dict[str, int]:
        """bot -> restarts its stored games cost it (docs/design.md §5): one per startup or
        protocol fault, one per game with a crash. A resumed league starts its pool from
        these, so a withdrawn bot stays withdrawn and counts equal an uninterrupted run."""
        query = (
            "SELECT bot, SUM(kind IN ('startup', 'protocol')) + COUNT(DISTINCT CASE WHEN kind = 'crash' THEN game_id END) "
            "FROM faults GROUP BY bot"
        )
        with self._lock:
            return {bot: int(count) for bot, count in self._db.execute(query)}

    # -- writing -------------------------------------------------------------

    def save_game(self, record: GameRecord) -> None:
        """Store one finished game and its faults in one transaction (replacing a game
        with the same id). StoreError when SQLite fails (disk full, file removed...)."""
        finished = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        blob = json.dumps(record.to_json(), separators=(",", ":"))
        summary = json.dumps(PlayedGame.of(record).to_json(), separators=(",", ":"))
        faults = [
            (record.game_id, f.seat, f.bot, f.kind, f.decision, f.detail, f.request, f.answer, f.ms) for f in record.faults
        ]
        overloads = [(record.game_id, o.seat, o.bot, o.decision, o.asks, o.detail) for o in record.overloads]
        try:
            with self._lock, self._db:
                self._db.execute("DELETE FROM faults WHERE game_id = ?", (record.game_id,))
                self._db.execute("DELETE FROM overloads WHERE game_id = ?", (record.game_id,))
                self._db.execute(
                    "INSERT OR REPLACE INTO games (game_id, fixture, finished_at, record) VALUES (?, ?, ?, ?)",
                    (record.game_id, record.fixture, finished, blob),
                )
                self._db.execute(
                    "INSERT OR REPLACE INTO summaries (game_id, fixture, summary) VALUES (?, ?, ?)",
                    (record.game_id, record.fixture, summary),
                )
                self._db.executemany(
                    "INSERT INTO faults (game_id, seat, bot, kind, decision, detail, request, answer, ms) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    faults,
                )
                self._db.executemany(
                    "INSERT INTO overloads (game_id, seat, bot, decision, asks, detail) VALUES (?, ?, ?, ?, ?, ?)", overloads
                )
        except sqlite3.Error as error:
            raise StoreError(f"cannot save game '{record.game_id}' to {self.path}: {error}") from None

    def set_meta(self, key: str, value: str) -> None:
        """Store one ``meta`` value (a league's progress, e.g. the rounds it has started)."""
        try:
            with self._lock, self._db:
                self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
        except sqlite3.Error as error:
            raise StoreError(f"cannot write to {self.path}: {error}") from None

    # -- reading -------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        """``league``, ``fingerprint``, ``config_text``, ``created`` (ISO 8601 UTC), ``schema_version``."""
        with self._lock:
            return dict(self._db.execute("SELECT key, value FROM meta").fetchall())

    def game_count(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(count)

    def finished_game_ids(self) -> set[str]:
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT game_id FROM games")}

    def finish_times(self) -> list[float]:
        """When each stored game finished, POSIX seconds, ascending (progress and ETA)."""
        with self._lock:
            rows = self._db.execute("SELECT finished_at FROM games ORDER BY finished_at").fetchall()
        return [datetime.fromisoformat(row[0]).timestamp() for row in rows]

    def records(self) -> Iterator[GameRecord]:
        """Every stored game, ordered by fixture (then game id). Read in batches of
        :data:`READ_BATCH`, so a long league's records are never all in memory at once."""
        with self._lock:
            keys = [row[0] for row in self._db.execute("SELECT rowid FROM games ORDER BY fixture, game_id")]
        for start in range(0, len(keys), READ_BATCH):
            batch = keys[start : start + READ_BATCH]
            marks = ",".join("?" * len(batch))
            with self._lock:
                blobs = dict(self._db.execute(f"SELECT rowid, record FROM games WHERE rowid IN ({marks})", batch).fetchall())
            for key in batch:
                if key in blobs:  # unless removed since the keys were read
                    yield GameRecord.from_json(json.loads(blobs.pop(key)))

    def played_games(self) -> Iterator[PlayedGame]:
        """What the standings need of every stored game (:class:`PlayedGame`), ordered by
        fixture (then game id): a tenth of the records to read, so standings, the live
        view and the web site are quick however long the league. Games stored without a
        summary (an older file) are read from their records."""
        with self._lock:
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            query = (
                "SELECT g.game_id, s.summary FROM games g LEFT JOIN summaries s ON s.game_id = g.game_id ORDER BY g.fixture, g.game_id"
                if "summaries" in tables
                else "SELECT game_id, NULL FROM games ORDER BY fixture, game_id"
            )
            rows = self._db.execute(query).fetchall()
        shared: dict[Any, Any] = {}
        for game_id, summary in rows:
            if summary is not None:
                yield PlayedGame.from_json(json.loads(summary), shared)
                continue
            with self._lock:
                row = self._db.execute("SELECT record FROM games WHERE game_id = ?", (game_id,)).fetchone()
            if row is not None:
                yield PlayedGame.of(GameRecord.from_json(json.loads(row[0])), shared)

    def rules(self) -> dict[str, Any] | None:
        """The rules the league's games were played under (those of its first stored game,
        as ``GameRecord.rules``); None before any game."""
        with self._lock:
            row = self._db.execute("SELECT json_extract(record, '$.rules') FROM games ORDER BY fixture, game_id LIMIT 1").fetchone()
        return json.loads(row[0]) if row is not None and row[0] is not None else None

    def record(self, game_id: str) -> GameRecord:
        """The game ``game_id``; StoreError naming close ids and how to list them."""
        with self._lock:
            row = self._db.execute("SELECT record FROM games WHERE game_id = ?", (game_id,)).fetchone()
            ids = [] if row else [r[0] for r in self._db.execute("SELECT game_id FROM games ORDER BY fixture, game_id")]
        if row is None:
            close = difflib.get_close_matches(game_id, ids, n=3, cutoff=0.5)
            hint = f"did you mean {', '.join(close)}? " if close else (f"ids look like '{ids[0]}'; " if ids else "")
            raise StoreError(
                f"no game '{game_id}' in {self.path} ({len(ids)} games): {hint}"
                f"list them with `referee replay {self.path}`"
            )
        return GameRecord.from_json(json.loads(row[0]))

    def faults(self, bot: str | None = None) -> list[StoredFault]:
        """Every fault (of ``bot`` only, when given), ordered by fixture then decision."""
        query = (
            "SELECT f.game_id, f.kind, f.seat, f.bot, f.decision, f.detail, f.request, f.answer, f.ms "
            "FROM faults f JOIN games g ON g.game_id = f.game_id"
        )
        params: tuple[Any, ...] = ()
        if bot is not None:
            query += " WHERE f.bot = ?"
            params = (bot,)
        query += " ORDER BY g.fixture, f.game_id, f.decision, f.rowid"
        with self._lock:
            rows = self._db.execute(query, params).fetchall()
        return [StoredFault(row[0], FaultRecord(*row[1:])) for row in rows]

    def overloads(self) -> dict[str, tuple[int, int]]:
        """bot -> (late answers that were the machine's, of those asked again): none were
        charged (docs/design.md §5). Empty for a file written before they were kept."""
        query = "SELECT bot, COUNT(*), SUM(asks > 1) FROM overloads GROUP BY bot ORDER BY bot"
        try:
            with self._lock:
                return {bot: (int(count), int(again)) for bot, count, again in self._db.execute(query)}
        except sqlite3.OperationalError:  # no such table: an older results file
            return {}

    # -- closing -------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _private_file(path: Path) -> None:
    """Create ``path`` (and its missing folders, 0700) readable by its owner only (0600), or
    make an existing one and its ``-wal``/``-shm`` so: a bot running as another uid cannot
    read the league's games while they are played (docs/sandbox.md). SQLite gives the WAL
    files it creates the database's mode. Raises OSError."""
    missing = [folder for folder in path.parents if not folder.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
    for suffix in ("", "-wal", "-shm"):
        companion = Path(f"{path}{suffix}")
        if companion.exists() and companion.stat().st_uid == os.geteuid():
            os.chmod(companion, 0o600)


def _connect(path: Path, *, create: bool) -> sqlite3.Connection:
    mode = "rwc" if create else "rw"
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, check_same_thread=False)
        connection.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error as error:
        raise StoreError(f"cannot open {path}: {error}") from None
    return connection


def _without_comment(line: str) -> str:
    """A TOML line without its ``#`` comment (a ``#`` inside a quoted string is kept)."""
    quote = ""
    for position, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:position].strip()
    return line.strip()


def _first_change(old: str, new: str) -> str:
    """The first differing line of two config texts, comments and blank lines ignored."""

    def meaningful(text: str) -> list[str]:
        return [line for line in map(_without_comment, text.splitlines()) if line]

    for tag, a0, a1, b0, b1 in difflib.SequenceMatcher(None, meaningful(old), meaningful(new)).get_opcodes():
        if tag == "equal":
            continue
        was = meaningful(old)[a0:a1][:1]
        now = meaningful(new)[b0:b1][:1]
        if was and now:
            return f"'{was[0]}' is now '{now[0]}'"
        return f"'{was[0]}' was removed" if was else f"'{now[0]}' was added"
    return "the settings differ"
