"""The live site: a read-only Starlette app over a results store.

Routes follow :mod:`referee.web.render`'s URL scheme, plus ``/events`` (server-sent
events: ``progress`` every second, ``standings`` when a game was stored) and, only with
``--show-logs``, ``/logs/<file>`` (a bot's log from the league's run folder). Nothing
else on disk is served: the static files come from the package's own folder.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from referee.errors import StoreError
from referee.web.data import slug
from referee.web.render import STATIC, Pages

EVENT_PERIOD_S = 1.0  # how often /events looks for new games and sends the progress
T = TypeVar("T")

_SEAT_PAGE = re.compile(r"^(?P<game>.+)-seat(?P<seat>\d+)$")


def sse_message(event: str, html: str) -> str:
    """One server-sent event whose data is ``html`` (each line its own ``data:`` field)."""
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in html.splitlines()) + "\n"


def make_app(pages: Pages) -> Starlette:
    """The site of ``pages`` (bot logs only when ``pages.logs_dir`` is set: ``--show-logs``)."""
    logs_dir = pages.logs_dir

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
        candidates = [(stem, None)] + ([(match["game"], int(match["seat"]))] if match else [])
        ids = await run(lambda: {slug(game_id): game_id for game_id, *_ in pages.data.snapshot().games})
        for game_slug, seat in candidates:
            if game_slug in ids:
                game_id = ids[game_slug]
                try:
                    return HTMLResponse(await run(lambda: pages.game(game_id, seat)))
                except (KeyError, StoreError):
                    break
        return _not_found("no such game (or seat) in this league")

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            seen = -1
            while True:
                yield sse_message("progress", await run(pages.progress_fragment))
                snapshot = await run(pages.data.snapshot)
                if snapshot.count != seen:
                    seen = snapshot.count
                    yield sse_message("standings", await run(lambda: pages.standings_fragment(snapshot)))
                await anyio.sleep(EVENT_PERIOD_S)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    async def log(request: Request) -> Response:
        if logs_dir is None:
            return _not_found("logs are served only with --show-logs")
        root = logs_dir.resolve()
        path = (root / request.path_params["path"]).resolve()
        if not path.is_relative_to(root) or path.suffix != ".log" or not path.is_file():
            return _not_found("no such log")
        return FileResponse(path, media_type="text/plain; charset=utf-8")

    routes = [
        Route("/", lambda request: RedirectResponse("index.html")),
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
    return Starlette(routes=routes)


def _not_found(text: str) -> Response:
    return PlainTextResponse(text, status_code=404)
