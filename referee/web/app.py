"""The live site: a read-only Starlette app over a results store.

Routes follow :mod:`referee.web.render`'s URL scheme, plus ``/events`` (server-sent
events: ``progress``, ``state`` and ``footer`` every second, ``standings`` when a game was
stored) and, only with ``--show-logs``, ``/logs/<file>`` (a bot's log from the league's
run folder, once every game it played may be shown). Nothing else on disk is served: the
static files come from the package's own folder. A game held back while its deal has a
rotation to play (:mod:`referee.web.data`) is answered 404, as is the log of a process that
played it.

:class:`Audience` knows the open event streams and which of them have been sent the
league's final progress and standings, so that ``referee run --serve`` stops serving only
once every open page has them.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from referee.errors import StoreError
from referee.web.data import HeldBack, slug
from referee.web.render import STATIC, Pages

EVENT_PERIOD_S = 1.0  # how often /events looks for new games and sends the progress
T = TypeVar("T")


class Audience:
    """The open event streams of the live site, and which of them have been sent the
    league's final state (its progress once over, and the standings of every game).
    :meth:`poke` wakes every stream at once (the league just ended)."""

    def __init__(self) -> None:
        self._streams: dict[int, bool] = {}  # stream id -> sent the final state
        self._next = 0
        self._wake: anyio.Event | None = None

    def join(self) -> int:
        self._next += 1
        self._streams[self._next] = False
        return self._next

    def leave(self, stream: int) -> None:
        self._streams.pop(stream, None)

    def delivered(self, stream: int) -> None:
        if stream in self._streams:
            self._streams[stream] = True

    @property
    def open(self) -> int:
        return len(self._streams)

    @property
    def waiting(self) -> int:
        """Open streams not yet sent the final state."""
        return sum(1 for sent in self._streams.values() if not sent)

    def poke(self) -> None:
        if self._wake is not None:
            self._wake.set()
            self._wake = None

    async def pause(self, seconds: float) -> None:
        """Sleep ``seconds``, or until :meth:`poke`."""
        if self._wake is None:
            self._wake = anyio.Event()
        with anyio.move_on_after(seconds):
            await self._wake.wait()

_SEAT_PAGE = re.compile(r"^(?P<game>.+)-seat(?P<seat>\d+)$")


def sse_message(event: str, html: str) -> str:
    """One server-sent event whose data is ``html`` (each line its own ``data:`` field)."""
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in html.splitlines()) + "\n"


def to_index(request: Request) -> Response:
    """``/`` sends the browser to ``index.html`` with the same query (``/?tv=1``: the
    projector view)."""
    query = request.url.query
    return RedirectResponse("index.html" + (f"?{query}" if query else ""))


def make_app(pages: Pages, audience: Audience | None = None, extra: Sequence[BaseRoute] = ()) -> Starlette:
    """The site of ``pages`` (bot logs only when ``pages.logs_dir`` is set: ``--show-logs``);
    ``audience`` follows its event streams. ``extra``: more routes (people's tables,
    :mod:`referee.web.table`)."""
    logs_dir = pages.logs_dir
    audience = audience or Audience()

    async def run(build: Callable[[], T]) -> T:
        # abandoned on cancel: Ctrl-C stops the server at once, even while a page is built
        return await anyio.to_thread.run_sync(build, abandon_on_cancel=True)

    async def index(request: Request) -> Response:
        return HTMLResponse(await run(pages.index))

    async def h2h(request: Request) -> Response:
        return HTMLResponse(await run(pages.head_to_head))

    async def games(request: Request) -> Response:
        return HTMLResponse(await run(pages.games))

    async def bot(request: Request) -> Response:
        slugs = await run(pages.bot_slugs)
        name = slugs.get(request.path_params["name"].removesuffix(".html"))
        if name is None:
            return _not_found("no such bot in this league")
        return HTMLResponse(await run(lambda: pages.bot(name)))

    async def game(request: Request) -> Response:
        stem = request.path_params["name"].removesuffix(".html")
        match = _SEAT_PAGE.match(stem)
        candidates = [(stem, None)] + ([(match["game"], int(match["seat"]))] if match else [])  # <game>-seat<N>: seat N's view
        ids = await run(lambda: {slug(game_id): game_id for game_id, *_ in pages.data.snapshot().games})
        for game_slug, seat in candidates:
            if game_slug in ids:
                game_id = ids[game_slug]
                try:
                    return HTMLResponse(await run(lambda: pages.game(game_id, seat)))
                except HeldBack:
                    return _not_found("this game is shown once every rotation of its deal has been played")
                except (KeyError, StoreError):
                    break
        return _not_found("no such game (or seat) in this league")

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            me = audience.join()
            seen = -1
            try:
                while True:
                    progress = await run(pages.data.progress)
                    for event, html in (await run(lambda: pages.live_fragments(progress))).items():
                        yield sse_message(event, html)
                    snapshot = await run(lambda: pages.data.snapshot(now=progress.over))
                    if snapshot.count != seen:
                        seen = snapshot.count
                        yield sse_message("standings", await run(lambda: pages.standings_fragment(snapshot)))
                    if progress.over and snapshot.count >= progress.done:
                        audience.delivered(me)
                    await audience.pause(EVENT_PERIOD_S)
            finally:
                audience.leave(me)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    async def log(request: Request) -> Response:
        if logs_dir is None:
            return _not_found("logs are served only with --show-logs")
        root = logs_dir.resolve()
        path = (root / request.path_params["path"]).resolve()
        if not path.is_relative_to(root) or path.suffix != ".log" or not path.is_file():
            return _not_found("no such log")
        text = await run(lambda: path.read_text(errors="replace"))
        if not await run(lambda: pages.data.log_shown(text)):
            return _not_found("this log is shown once every rotation of the deals it played has been played")
        return PlainTextResponse(text, media_type="text/plain; charset=utf-8")

    routes = [
        Route("/", to_index),
        Route("/index.html", index),
        Route("/h2h.html", h2h),
        Route("/games.html", games),
        Route("/bots/{name}", bot),
        Route("/games/{name}", game),
        Route("/events", events),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    if logs_dir is not None:
        routes.append(Route("/logs/{path:path}", log))
    return Starlette(routes=[*routes, *extra])


def _not_found(text: str) -> Response:
    return PlainTextResponse(text, status_code=404)
