"""BotClient.hello dials a unix: bot only once its socket file exists (start-up, B5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from referee.transport import HelloError
from referee.transport.client import BotClient, _unix_path
from tests.conftest import REPO

INSTANT_BOT = REPO / "bench" / "bots" / "instant_bot.py"


@pytest.mark.parametrize(
    ("address", "path"),
    [
        ("unix:/tmp/a/bot.sock", "/tmp/a/bot.sock"),
        ("unix:///tmp/a/bot.sock", "/tmp/a/bot.sock"),
        ("unix:bot.sock", "bot.sock"),
        ("127.0.0.1:50051", None),
        ("localhost:7", None),
    ],
)
def test_the_socket_path_of_an_address(address: str, path: str | None) -> None:
    assert _unix_path(address) == path


def test_hello_before_the_bot_starts_answers_once_it_listens(tmp_path: Path) -> None:
    socket = tmp_path / "late.sock"
    env = {**os.environ, "KWHIST_LISTEN": f"unix:{socket}"}
    started: list[subprocess.Popen[bytes]] = []

    async def main() -> str:
        client = BotClient(f"unix:{socket}", "late")
        try:
            async with trio.open_nursery() as nursery:

                async def start_later() -> None:
                    await trio.sleep(0.3)  # the client is already waiting
                    started.append(subprocess.Popen([sys.executable, str(INSTANT_BOT)], env=env))

                nursery.start_soon(start_later)
                info = await client.hello(60.0)
            return info.name
        finally:
            client.close()

    try:
        assert trio.run(main) == "instant"
    finally:
        for process in started:
            process.kill()
            process.wait()


def test_hello_to_a_socket_that_never_appears_is_a_startup_error(tmp_path: Path) -> None:
    client = BotClient(f"unix:{tmp_path}/never.sock", "ghost")
    try:
        with pytest.raises(HelloError, match=r"ghost .* no Hello reply within 0\.3 s") as raised:
            trio.run(lambda: client.hello(0.3))
    finally:
        client.close()
    assert raised.value.kind == "startup"
