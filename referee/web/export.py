"""The league's site as static files: the same pages as the live site, without the live
updates, with the stylesheet and the viewer's script copied in and only relative links
(opens from disk, no network). One page per game holds its JSON record; the browser draws
every seat's view from it (:mod:`referee.web.viewer`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from referee.errors import StoreError
from referee.results.store import ResultsStore
from referee.web.data import SiteData, slug
from referee.web.render import STATIC, Pages


def export_html(store: ResultsStore, directory: Path) -> int:
    """Write every page of ``store``'s league under ``directory``: index, head-to-head,
    games list, one page per bot, and one viewer page per game that may be shown
    (:meth:`~referee.web.data.SiteData.may_show`). Returns the number of pages written.
    StoreError when the folder cannot be written."""
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
        for name in ("style.css", "viewer.js"):
            shutil.copy2(STATIC / name, _ready(static) / name)
        write("index.html", pages.index())
        write("h2h.html", pages.head_to_head())
        write("games.html", pages.games())
        for name in snapshot.bots:
            write(f"bots/{slug(name)}.html", pages.bot(name))
        for record in store.records():
            if pages.data.may_show(record):
                write(f"games/{slug(record.game_id)}.html", pages.game(record.game_id, None, record))
    except OSError as error:
        raise StoreError(f"cannot write the site into {directory}: {error.strerror or error}") from None
    return written


def _ready(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
