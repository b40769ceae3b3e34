"""Serve the site under trio (Hypercorn's trio worker), alone or beside a running league."""

from __future__ import annotations

import logging
import socket
from functools import partial
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import trio
from hypercorn.config import Config, Sockets
from hypercorn.trio.run import worker_serve
from hypercorn.utils import wrap_app
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from referee.errors import ConfigError
from referee.results.store import ResultsStore
from referee.web.app import Audience, make_app
from referee.web.data import SiteData
from referee.web.render import Pages

DEFAULT_HOST = "127.0.0.1"


def parse_address(text: str, *, default_port: int = 8000) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT``, ``HOST`` or ``[IPv6]:PORT`` as (host, port); the host is
    127.0.0.1 unless given. ConfigError for a port that is not a number in 0-65535."""
    text = text.strip()
    host, port_text = DEFAULT_HOST, text
    if text.startswith("["):
        inside, _, rest = text[1:].partition("]")
        host, port_text = inside, rest.removeprefix(":") or str(default_port)
    elif text.count(":") == 1:
        host, port_text = text.split(":")
        host = host or DEFAULT_HOST
    elif not text.isdigit():
        host, port_text = text, str(default_port)
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ConfigError(f"address {text!r}: expected [HOST:]PORT with PORT a number 0-65535, e.g. 8000 or 0.0.0.0:8000")
    return host, int(port_text)


def _config(host: str, port: int) -> Config:
    config = Config()
    bind_host = f"[{host}]" if ":" in host else host
    config.bind = [f"{bind_host}:{port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("referee.web")  # quiet: warnings only (no per-request lines)
    logging.getLogger("referee.web").setLevel(logging.WARNING)
    config.graceful_timeout = 1.0
    return config


def site_pages(
    store: ResultsStore,
    *,
    bots: Sequence[str] = (),
    show_logs: bool = False,
    logs_dir: Path | None = None,
) -> Pages:
    """The live site's pages over ``store``; bot logs (from ``logs_dir``) only with ``show_logs``."""
    data = SiteData(store, bots=bots)
    return Pages(data, live=True, logs_dir=logs_dir if show_logs else None)


async def serve_site(
    pages: Pages,
    address: tuple[str, int],
    *,
    audience: Audience | None = None,
    routes: Sequence[BaseRoute] = (),
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``pages`` on ``address`` until cancelled; reports its URL (``http://HOST:PORT/``,
    the real port when 0 was asked) through ``task_status``. ``audience`` follows the open
    pages; ``routes`` are served beside them (people's tables). ConfigError when the
    address cannot be listened on (in use, not this machine's)."""
    await serve_app(make_app(pages, audience, routes), address, task_status=task_status)


async def serve_app(app: Starlette, address: tuple[str, int], *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``app`` on ``address`` until cancelled, as :func:`serve_site` does."""
    host, port = address
    config = _config(host, port)
    try:
        sockets = config.create_sockets()
        for sock in sockets.insecure_sockets:
            sock.listen(config.backlog)
    except (OSError, socket.gaierror) as error:
        raise ConfigError(f"cannot serve the site on {host}:{port}: {error.strerror or error}: choose another port") from None
    bound = sockets.insecure_sockets[0].getsockname()
    shown_host = f"[{bound[0]}]" if ":" in str(bound[0]) else bound[0]
    task_status.started(f"http://{shown_host}:{bound[1]}/")
    await _serve(app, config, sockets)


async def _serve(app: Starlette, config: Config, sockets: Sockets) -> None:
    await worker_serve(wrap_app(app, config.wsgi_max_body_size, None), config, sockets=sockets)  # type: ignore[arg-type]


FINAL_WAIT_S = 30.0  # at most this long after the league, the site waits for open pages to get the final state


def beside_league(
    league: Callable[[], Awaitable[None]],
    address: str,
    results: Path,
    *,
    show_logs: bool,
    logs_dir: Path,
    announce: Callable[[str], object],
    say: Callable[[str], object],
    routes: Sequence[BaseRoute] = (),
) -> Callable[[], Awaitable[None]]:
    """``referee run --serve``: an async function that runs ``league`` with the site of
    ``results`` served beside it in the same trio run. ``announce`` is told the site's URL
    once it listens. When the league is over, every open page is sent its final progress
    and standings (waiting up to :data:`FINAL_WAIT_S`) before the site stops; ``say`` is
    told how many got them and how to keep the site up. ``routes`` are served beside the
    site (people's tables). ConfigError at once for a bad ``address``."""
    where = parse_address(address)

    async def run() -> None:
        store = ResultsStore.open_existing(results)  # its own connection: never waits on the league's
        pages = site_pages(store, show_logs=show_logs, logs_dir=logs_dir)
        audience = Audience()
        try:
            async with trio.open_nursery() as nursery:
                url = await nursery.start(partial(serve_site, pages, where, audience=audience, routes=routes))
                announce(url)
                await league()
                audience.poke()
                with trio.move_on_after(FINAL_WAIT_S):
                    while audience.waiting:
                        await trio.sleep(0.05)
                sent = audience.open - audience.waiting
                shown = f"{sent} open page{'s' if sent != 1 else ''} got the final standings; " if audience.open else ""
                here = url.removeprefix("http://").rstrip("/")
                say(f"site: {shown}it stops now. Keep it up with: referee serve {results} {here}")
                nursery.cancel_scope.cancel()
        finally:
            store.close()

    return run
