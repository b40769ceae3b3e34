"""The site's pages as HTML text (Jinja2, autoescaped: every bot-supplied text is escaped).

One URL scheme for the live site and the static export, all links relative, so the same
pages work served and opened from disk:

- ``index.html``: progress and standings; ``h2h.html``: head-to-head; ``games.html``;
- ``bots/<slug>.html``: a bot's games, points, faults by kind, decision-time plot;
- ``games/<slug>.html``: the viewer with every hand (stored games are over);
- ``games/<slug>-seat<N>.html``: the viewer as seat N saw the game; neither exists for a
  game held back while its deal has a rotation to play (:mod:`referee.web.data`);
- ``static/...``: the stylesheet and the vendored JavaScript (htmx and its SSE extension,
  only on the live site, for updates without reload).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from referee.checkbot.describe import describe_request, legal_answers
from referee.game.records import FAULT_KINDS, GameRecord
from referee.standings.table import Standings
from referee.web.data import Progress, SiteData, Snapshot, slug
from referee.web.plots import decision_time_svg
from referee.web.viewer import dealt_hands, game_steps, visible_hands

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
    """``1:02:03`` / ``2:03``; ``—`` when unknown."""
    if seconds is None:
        return "—"
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


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
    env.filters.update(card=card_html, suit=suit_html, duration=duration, slug=slug, by_place=by_place)
    env.globals.update(FAULT_KINDS=FAULT_KINDS)
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

    def _page(self, template: str, path: str, **context: Any) -> str:
        return self.env.get_template(template).render(
            root=Link(path).root, live=self.live, league=self.data.league, show_logs=self.show_logs, **context
        )

    # -- fragments (also pushed over server-sent events) ----------------------

    def progress_fragment(self, progress: Progress | None = None) -> str:
        return self.env.get_template("_progress.html").render(progress=progress or self.data.progress(), root="")

    def standings_fragment(self, snapshot: Snapshot | None = None) -> str:
        return self.env.get_template("_standings.html").render(standings=(snapshot or self.data.snapshot()).standings, root="")

    # -- pages ---------------------------------------------------------------

    def index(self) -> str:
        snapshot = self.data.snapshot()
        return self._page(
            "index.html", "index.html", progress=self.data.progress(), standings=snapshot.standings, rules=snapshot.rules
        )

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
        faults = [
            {
                "kind": kind,
                "count": count,
                "game": stored.game_id,
                "seat": stored.fault.seat,
                "decision": stored.fault.decision,
                "detail": stored.fault.detail,
                "asked": describe_request(stored.fault.request) if stored.fault.request else "",
                "answered": stored.fault.answer,
                "legal": " ".join(legal_answers(stored.fault.request)) if stored.fault.request else "",
                "ms": stored.fault.ms,
            }
            if stored is not None
            else {"kind": kind, "count": count, "game": None}  # every example is in a game held back
            for kind, count, stored in self.data.first_fault_of_each_kind(name)
        ]
        logs = bot_logs(self.logs_dir, name) if self.logs_dir is not None else []
        return self._page(
            "bot.html",
            f"bots/{slug(name)}.html",
            bot=name,
            row=row,
            games=summary.games,
            held_back=snapshot.held_back,
            faults=faults,
            plot=Markup(decision_time_svg(summary.decision_ms, limit_ms=self.data.move_ms)),  # numbers only: no bot text in it
            logs=logs,
        )

    def game(self, game_id: str, seat: int | None, record: GameRecord | None = None) -> str:
        """The viewer of game ``game_id`` with every hand (``seat=None``) or as ``seat``
        saw it (``record``: the game's record, when already read). StoreError when there is
        no such game; :class:`~referee.web.data.HeldBack` while its deal has a rotation to
        play; KeyError for a seat it does not have."""
        if record is None or game_id in self.data.snapshot().held_back:
            record = self.data.record(game_id)
        if seat is not None and not 0 <= seat < len(record.seats):
            raise KeyError(seat)
        steps = game_steps(record)
        shown = [(step, visible_hands(step, seat)) for step in steps]
        path = f"games/{slug(game_id)}" + (f"-seat{seat}" if seat is not None else "") + ".html"
        return self._page(
            "game.html", path, record=record, seat=seat, steps=shown, dealt=dealt_hands(record), game_slug=slug(game_id)
        )


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
