"""The league's site as static files: the same pages as the live site, without the live
updates, with the stylesheet copied in and only relative links (opens from disk, no network)."""

from __future__ import annotations

import shutil
from pathlib import Path

from referee.errors import StoreError
from referee.results.store import ResultsStore
from referee.web.data import SiteData, slug
from referee.web.render import STATIC, Pages


def export_html(store: ResultsStore, directory: Path) -> int:
    """Write every page of ``store``'s league under ``directory``: index, head-to-head,
    games list, one page per bot, and per game the all-hands viewer and one viewer per seat,
    but none for a game held back while its deal has a rotation to play
    (:mod:`referee.web.data`). Returns the number of pages written. StoreError when the
    folder cannot be written."""
    pages = Pages(SiteData(store), live=False)
    snapshot = pages.data.snapshot()
    written = 0

    def write(path: str, html: str) -> None:
        nonlocal written
        target = directory / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        written += 1

    try:
        directory.mkdir(parents=True, exist_ok=True)
        static = directory / "static"
        shutil.copy2(STATIC / "style.css", _ready(static) / "style.css")
        write("index.html", pages.index())
        write("h2h.html", pages.head_to_head())
        write("games.html", pages.games())
        for name in snapshot.bots:
            write(f"bots/{slug(name)}.html", pages.bot(name))
        for game_id, _fixture, seats, _placements, _faults in snapshot.games:
            if game_id in snapshot.held_back:
                continue
            record = store.record(game_id)
            write(f"games/{slug(game_id)}.html", pages.game(game_id, None, record))
            for seat in range(len(seats)):
                write(f"games/{slug(game_id)}-seat{seat}.html", pages.game(game_id, seat, record))
    except OSError as error:
        raise StoreError(f"cannot write the site into {directory}: {error.strerror or error}") from None
    return written


def _ready(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
