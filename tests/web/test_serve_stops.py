"""``referee serve`` stops on Ctrl-C at once, also while a page is being built (a big
league's standings on a loaded machine took seconds): the page's thread is abandoned,
not waited for."""

from __future__ import annotations

import threading
import urllib.request
from functools import partial
from pathlib import Path

import trio

from referee.results.store import ResultsStore
from referee.web.serve import serve_site, site_pages


def test_ctrl_c_stops_the_server_while_a_page_is_being_built(tmp_path: Path) -> None:
    store = ResultsStore.open(tmp_path / "night.sqlite", league="night", fingerprint="x", config_text="", resume=False)
    pages = site_pages(store)
    building, never = threading.Event(), threading.Event()

    def slow_snapshot() -> object:  # a page that takes forever to build
        building.set()
        never.wait()
        raise AssertionError("unreachable")

    pages.data.snapshot = slow_snapshot  # type: ignore[method-assign]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(partial(serve_site, pages, ("127.0.0.1", 0)))
            threading.Thread(target=lambda: _get(url), daemon=True).start()
            await trio.to_thread.run_sync(building.wait)
            nursery.cancel_scope.cancel()  # what Ctrl-C does to `referee serve`

    server = threading.Thread(target=trio.run, args=(main,), daemon=True)
    server.start()
    server.join(60)  # a hang guard: it stops at once, or never
    assert not server.is_alive(), "the server waited for the page being built"
    never.set()
    store.close()


def _get(url: str) -> None:
    try:
        urllib.request.urlopen(url, timeout=120).read()
    except OSError:
        pass
