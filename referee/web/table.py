"""A person's seat in the browser: ``/table/<secret>`` (docs/design.md §3, §5).

Three routes per person, each answering only the browser that opened the link first
(:meth:`referee.league.human.People.claim`; its cookie is kept for that link's path):

- ``GET /table/<secret>``: the table page (``templates/table.html``, drawn by
  ``static/table.js``). It holds no card: everything comes over its event stream.
- ``GET /table/<secret>/events``: server-sent events, one ``state`` event (JSON,
  :func:`referee.web.tableview.table_state`) each time what the seat sees changes, and a
  keep-alive comment every :data:`KEEP_ALIVE_S`. An open stream is the person being there.
- ``POST /table/<secret>/answer``: ``{"decision": N, "action": "AS"}`` (``trump H``,
  ``pass``): the answer to decision N, handed to the match, which judges it as it judges a
  bot's. 200 ``ok``; 409 ``stale`` (no such decision asked now); 400 ``bad``.

A wrong secret, or a right one from another browser (a reused link), is answered 404 with
the same two words on every route: nothing of the table.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from referee.league.human import People, Person, Showing
from referee.web.app import sse_message
from referee.web.render import STATIC
from referee.web.tableview import Asked, table_state

KEEP_ALIVE_S = 15.0  # a comment on an idle stream: a dead connection is noticed
COOKIE = "kw_seat"
MAX_ANSWER_BYTES = 1000
_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True, undefined=jinja2.StrictUndefined
)


def page_state(person: Person, showing: Showing | None, results: str | None = None) -> dict[str, Any]:
    """What ``person``'s page is sent: their seat as :func:`table_state` tells it, with
    ``you`` (their name) and, once the game is over, ``replay`` (the command that shows it
    again, when the games are stored in ``results``); ``{"you": ..., "waiting": true}``
    before their first game."""
    if showing is None:
        return {"you": person.name, "waiting": True}
    asked = showing.asked
    shown = Asked(asked.number, asked.time_left_ms, asked.bank_left_ms) if asked is not None else None
    state = table_state(showing.names, showing.view, showing.events, shown, showing.note)
    state["you"] = person.name
    state["names"] = list(showing.names)
    if state["over"] is not None and results:
        state["replay"] = f"referee replay {results} {showing.game_id} --seat {showing.seat}"
    return state


def table_routes(people: People) -> list[BaseRoute]:
    """The routes of every person's table (mounted beside the league's site, or alone)."""

    def holder(request: Request) -> Person | None:
        person = people.by_secret(request.path_params["secret"])
        if person is None or not people.holds(person, request.cookies.get(COOKIE)):
            return None
        return person

    async def page(request: Request) -> Response:
        secret = request.path_params["secret"]
        person = people.by_secret(secret)
        cookie = people.claim(person, request.cookies.get(COOKIE)) if person is not None else None
        if person is None or cookie is None:
            return _nothing()
        html = _TEMPLATES.get_template("table.html").render(you=person.name, secret=secret)
        response = HTMLResponse(html, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
        response.set_cookie(COOKIE, cookie, path=f"/table/{secret}", httponly=True, samesite="strict")
        return response

    async def events(request: Request) -> Response:
        person = holder(request)
        if person is None:
            return _nothing()

        async def stream() -> AsyncIterator[str]:
            people.opened(person)
            try:
                version = -1
                while True:
                    now, showing = await people.next_showing(person, version, KEEP_ALIVE_S)
                    if now == version:
                        yield ": keep-alive\n\n"
                        continue
                    version = now
                    yield sse_message("state", json.dumps(page_state(person, showing, people.results), separators=(",", ":")))
                    people.sent(person, now)
            finally:
                people.closed(person)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    async def answer(request: Request) -> Response:
        person = holder(request)
        if person is None:
            return _nothing()
        body = await request.body()
        try:
            if len(body) > MAX_ANSWER_BYTES:
                raise ValueError
            data = json.loads(body)
            number, text = data["decision"], data["action"]
            if isinstance(number, bool) or not isinstance(number, int) or not isinstance(text, str):
                raise TypeError
        except (ValueError, TypeError, KeyError):
            return JSONResponse({"outcome": "bad"}, status_code=400)
        outcome = people.answer(person, number, text)
        return JSONResponse({"outcome": outcome}, status_code={"ok": 200, "stale": 409}.get(outcome, 400))

    return [
        Route("/table/{secret}", page),
        Route("/table/{secret}/events", events),
        Route("/table/{secret}/answer", answer, methods=["POST"]),
    ]


def table_app(people: People) -> Starlette:
    """The tables alone (``referee play``): every person's routes and the site's static files."""
    return Starlette(routes=[*table_routes(people), Mount("/static", app=StaticFiles(directory=STATIC), name="static")])


def _nothing() -> Response:
    return PlainTextResponse("nothing here", status_code=404, headers={"Cache-Control": "no-store"})


def seat_links(people: People, url: str) -> list[tuple[str, str]]:
    """(name, link) of every person's seat on the server at ``url`` (``http://HOST:PORT/``);
    a server listening on every address (0.0.0.0, ::) is named by this machine's address on
    its network, which the class's laptops can reach."""
    base = reachable(url)
    return [(person.name, f"{base}table/{person.secret}") for person in people.persons()]


def reachable(url: str) -> str:
    """``url`` with a wildcard host (``0.0.0.0``, ``[::]``) replaced by this machine's
    address on its network (the one it would reach other machines from), else its name."""
    head, _, rest = url.partition("://")
    host, _, tail = rest.partition("/")
    name, _, port = host.rpartition(":")
    if name not in ("0.0.0.0", "[::]"):
        return url
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: only the route is looked up
            address = probe.getsockname()[0]
    except OSError:
        address = socket.gethostname()
    return f"{head}://{address}:{port}/{tail}"
