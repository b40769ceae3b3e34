"""The site's pages as HTML text (Jinja2, autoescaped: every bot-supplied text is escaped).

One URL scheme for the live site and the static export, all links relative, so the same
pages work served and opened from disk:

- ``index.html``: progress and standings (``?tv=1``: the projector view, 30 bots on a
  1280x720 screen); ``h2h.html``: head-to-head; ``games.html``;
- ``bots/<slug>.html``: a bot's games, points, faults by kind (each fault at the anchor
  :func:`fault_anchor`), decision-time plot;
- ``games/<slug>.html``: the game viewer. The page holds the game as one JSON record
  (:func:`referee.web.viewer.viewer_record`), and ``static/viewer.js`` draws it in the
  browser: with every hand (no address fragment), or as seat N saw it
  (``#seat=N``), at step S (``#seat=N&step=S``, numbered from 1 as shown);
  ``games/<slug>-seat<N>.html`` (the live site only) opens the view of seat N; no viewer
  page exists for a game held back while its deal has a rotation to play
  (:meth:`~referee.web.data.SiteData.may_show`), nor is its faults' evidence shown;
- ``static/...``: the stylesheet, the viewer's script, and the vendored JavaScript (htmx
  and its SSE extension, only on the live site, for updates without reload).

Every text a student reads is worded by :func:`referee.checkbot.describe.plain_words`: no
gRPC status (it stays in the bot's log) and no host path.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from referee.checkbot.describe import describe_request, fault_in_words, legal_answers, plain_words
from referee.game.records import FAULT_KINDS, FaultRecord, GameRecord
from referee.league.progress import STATE_WORDS, LeagueProgress, clock_text, eta_text, games_text, round_text
from referee.standings.table import Standings
from referee.web.data import HeldBack, SiteData, Snapshot, slug
from referee.web.plots import decision_time_svg
from referee.web.viewer import viewer_record

HERE = Path(__file__).parent
STATIC = HERE / "static"
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@functools.lru_cache(maxsize=64)
def card_html(card: str | None) -> Markup:
    """``AS`` as ``<span class="card s-S">A♠</span>``; None as a dash (no card)."""
    if not card:
        return Markup('<span class="card none">—</span>')
    rank, suit = card[:-1], card[-1]
    rank = "10" if rank == "T" else rank
    return Markup('<span class="card s-{}">{}{}</span>').format(suit, rank, SUIT_SYMBOL.get(suit, suit))


def suit_html(letter: str | None) -> Markup:
    if not letter:
        return Markup("")
    return Markup('<span class="card s-{}">{}</span>').format(letter, SUIT_SYMBOL.get(letter, letter))


def duration(seconds: float | None) -> str:
    """``1:02:03`` / ``2:03``; ``—`` when unknown (:func:`referee.league.progress.clock_text`)."""
    return clock_text(seconds)


def fault_anchor(game_id: str, decision: int | None) -> str:
    """The id of a fault on its bot's page: ``fault-<game slug>-d<decision>`` (``-start``
    before the game)."""
    return f"fault-{slug(game_id)}-" + ("start" if decision is None else f"d{decision}")


def state_text(progress: LeagueProgress) -> str:
    """``"running"``, ``"finished (time budget)"``, ``"interrupted"``: the header's word."""
    words = STATE_WORDS[progress.state]
    if progress.state == "finished" and progress.reason:
        words += f" ({progress.reason})"
    return words


def json_script(data: object) -> Markup:
    """``data`` as JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def by_place(placements: Sequence[int]) -> list[tuple[int, int]]:
    """(placement, seat) pairs, best placement first."""
    return sorted((place, seat) for seat, place in enumerate(placements))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(card=card_html, suit=suit_html, duration=duration, slug=slug, by_place=by_place, words=plain_words)
    env.globals.update(
        FAULT_KINDS=FAULT_KINDS, games_text=games_text, round_text=round_text, eta_text=eta_text, state_text=state_text,
        fault_anchor=fault_anchor,
    )
    return env


@dataclass(frozen=True)
class Link:
    """Where a page lives (relative to the site root) and how deep, for relative links."""

    path: str

    @property
    def root(self) -> str:
        return "../" * self.path.count("/")


class Pages:
    """Renders every page from :class:`SiteData`. ``live`` adds the server-sent-event
    hooks (the live site); ``show_logs`` links each bot's logs (``--show-logs``)."""

    def __init__(self, data: SiteData, *, live: bool, logs_dir: Path | None = None) -> None:
        self.data = data
        self.live = live
        self.logs_dir = logs_dir
        self.show_logs = logs_dir is not None
        self.env = _environment()
        self._still: LeagueProgress | None = None

    def _page(self, template: str, path: str, **context: Any) -> str:
        context.setdefault("progress", self.progress())
        context.setdefault("sse", False)
        return self.env.get_template(template).render(
            root=Link(path).root, live=self.live, league=self.data.league, show_logs=self.show_logs, **context
        )

    def progress(self) -> LeagueProgress:
        """The league's progress now; read once for the static export (it does not move)."""
        if self.live:
            return self.data.progress()
        if self._still is None:
            self._still = self.data.progress()
        return self._still

    # -- fragments (also pushed over server-sent events) ----------------------

    def progress_fragment(self, progress: LeagueProgress | None = None) -> str:
        return self.env.get_template("_progress.html").render(progress=progress or self.data.progress(), root="")

    def live_fragments(self, progress: LeagueProgress) -> dict[str, str]:
        """The server-sent events of every second: ``progress`` (the progress section),
        ``state`` (the header's word) and ``footer``."""
        footer = self.env.get_template("_footer.html").render(progress=progress, live=self.live, root="")
        return {"progress": self.progress_fragment(progress), "state": state_text(progress), "footer": footer}

    def standings_fragment(self, snapshot: Snapshot | None = None) -> str:
        return self.env.get_template("_standings.html").render(standings=(snapshot or self.data.snapshot()).standings, root="")

    # -- pages ---------------------------------------------------------------

    def index(self) -> str:
        snapshot = self.data.snapshot()
        return self._page("index.html", "index.html", standings=snapshot.standings, rules=snapshot.rules, sse=self.live)

    def head_to_head(self) -> str:
        snapshot = self.data.snapshot()
        return self._page("h2h.html", "h2h.html", **head_to_head_grid(snapshot.standings))

    def games(self) -> str:
        snapshot = self.data.snapshot()
        return self._page("games.html", "games.html", games=snapshot.games, held_back=snapshot.held_back)

    def bot_slugs(self) -> dict[str, str]:
        return {slug(name): name for name in self.data.snapshot().bots}

    def bot(self, name: str) -> str:
        """The page of bot ``name``; KeyError when the league has no such bot."""
        snapshot = self.data.snapshot()
        summary = snapshot.bots[name]
        row = snapshot.standings.row(name)
        every = self.data.store.faults(name)
        stored = [item for item in every if self.data.may_show_game(item.game_id)]  # not of games held back
        examples: list[dict[str, Any]] = []
        seen: dict[str, int] = {}
        for item in every:
            seen[item.fault.kind] = seen.get(item.fault.kind, 0) + 1
        for kind in FAULT_KINDS:
            first = next((item for item in stored if item.fault.kind == kind), None)
            if first is not None:
                examples.append({**fault_view(first.game_id, first.fault), "count": seen[kind]})
            elif kind in seen:
                examples.append({"kind": kind, "count": seen[kind], "game": None})  # every one is in a game held back
        logs = bot_logs(self.logs_dir, name) if self.logs_dir is not None else []
        return self._page(
            "bot.html",
            f"bots/{slug(name)}.html",
            bot=name,
            row=row,
            own=snapshot.standings.own_line(name),
            claims=snapshot.standings.claims(),
            confidence=snapshot.standings.confidence,
            games=summary.games,
            faults=examples,
            every_fault=[fault_view(item.game_id, item.fault, evidence=False) for item in stored[:MAX_FAULTS_LISTED]],
            more_faults=max(0, len(stored) - MAX_FAULTS_LISTED),
            held_faults=len(every) - len(stored),
            held_back=snapshot.held_back,
            plot=Markup(decision_time_svg(summary.decision_ms, limit_ms=self.data.move_ms)),  # numbers only: no bot text in it
            logs=logs,
        )

    def game(self, game_id: str, seat: int | None = None, record: GameRecord | None = None) -> str:
        """The viewer page of game ``game_id``, opening the view of ``seat`` (None: every
        hand) when the address names none (``record``: the game's record, when already
        read). StoreError when there is no such game; KeyError for a seat it does not have;
        :class:`~referee.web.data.HeldBack` (a KeyError) for a game whose record may not be
        shown yet (:meth:`SiteData.may_show`)."""
        record = record or self.data.record(game_id)
        if seat is not None and not 0 <= seat < len(record.seats):
            raise KeyError(seat)
        if not self.data.may_show(record):
            raise HeldBack(game_id)
        return self._page(
            "game.html",
            f"games/{slug(game_id)}.html",
            record=record,
            seat=seat,
            data=json_script(game_json(record, root="../")),
        )


MAX_FAULTS_LISTED = 500  # a bot page lists at most this many faults one by one


def fault_view(game_id: str, fault: FaultRecord, *, evidence: bool = True) -> dict[str, Any]:
    """A fault as a bot page shows it, in a student's words (:func:`fault_in_words`)."""
    detail, answered = fault_in_words(fault.kind, fault.detail, fault.answer, fault.ms)
    view: dict[str, Any] = {
        "kind": fault.kind,
        "game": game_id,
        "seat": fault.seat,
        "decision": fault.decision,
        "detail": detail,
        "answered": answered,
        "ms": fault.ms,
        "anchor": fault_anchor(game_id, fault.decision),
    }
    if evidence:
        view["asked"] = describe_request(fault.request) if fault.request else ""
        view["legal"] = " ".join(legal_answers(fault.request)) if fault.request else ""
    return view


def game_json(record: GameRecord, *, root: str) -> dict[str, Any]:
    """The viewer's JSON record of ``record`` (:func:`referee.web.viewer.viewer_record`),
    its fault texts in a student's words, links relative to ``root``."""
    data = viewer_record(
        record,
        bot_pages=[f"{root}bots/{slug(name)}.html" for name in record.seats],
        fault_ids=[fault_anchor(record.game_id, fault.decision) for fault in record.faults],
    )
    for fault in data["faults"]:
        fault["detail"], fault["answer"] = fault_in_words(fault["kind"], fault.get("detail", ""), fault.get("answer", ""), fault.get("ms"))
    return data


def bot_logs(logs_dir: Path, bot: str) -> list[str]:
    """The logs of ``bot`` (``<bot>-<slot>.log``, in any subfolder) as paths relative to
    ``logs_dir``, in the URL form ``logs/<path>`` uses."""
    if not logs_dir.is_dir():
        return []
    own = re.compile(re.escape(bot) + r"-\d+\.log")
    return sorted(path.relative_to(logs_dir).as_posix() for path in logs_dir.rglob("*.log") if own.fullmatch(path.name))


def head_to_head_grid(standings: Standings) -> dict[str, Any]:
    """The bots in standings order and, per ordered pair, ``(outlasted, met, percent)``."""
    bots = [row.bot for row in standings.rows]
    cells = {}
    for (a, b), (outlasted, met) in standings.head_to_head.items():
        cells[(a, b)] = (outlasted, met, 100.0 * outlasted / met if met else 0.0)
    return {"bots": bots, "cells": cells}
