"""docs/protocol.md's "first bot" examples: the doc shows the files in docs/examples/
verbatim, and the Python and JavaScript bots, as written, play whole games over real gRPC;
the C++ strategy compiles against the code generated for the C++ sample; the doc's Debian
recipe for Go, run as written, builds the Go bot, which then plays whole games."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from referee.transport.client import BotClient, HelloInfo
from tests.conftest import REPO
from tests.crosslang.helpers import CPP_DIR, CPP_GENERATED, DOC, EXAMPLES, PROTO, doc_examples, require, start_node
from tests.transport.helpers import BotLauncher
from tests.transport.test_client import connect, play_game_over_grpc

pytestmark = pytest.mark.crosslang

EXAMPLE_FILES = [
    "docs/examples/first_bot.py", "docs/examples/first_bot.js", "docs/examples/first_strategy.cpp", "docs/examples/first_bot.go",
    "docs/examples/view_bot.py", "sample_bots/python/search_bot.py",
]  # fmt: skip


def test_the_doc_shows_each_example_file_verbatim() -> None:
    shown = doc_examples(DOC.read_text())
    assert sorted(shown) == sorted(EXAMPLE_FILES)
    for path, code in shown.items():
        assert code == (EXAMPLES.parent.parent / path).read_text(), f"{DOC} shows an outdated copy of {path}"


@pytest.mark.usefixtures("needs_node")
def test_the_python_and_javascript_first_bots_play_whole_games(bots: BotLauncher) -> None:
    python_bot = bots.start(EXAMPLES / "first_bot.py")
    js_bot = start_node(bots, EXAMPLES / "first_bot.js", env={"KWHIST_PROTO": str(PROTO)})

    async def hello_all() -> list[tuple[BotClient, HelloInfo]]:
        return [await connect(python_bot), await connect(js_bot)]

    (python_client, python_info), (js_client, js_info) = trio.run(hello_all)
    try:
        assert (python_info.name, js_info.name) == ("first-bot", "first-js-bot")
        assert (js_info.major, js_info.minor, js_info.streams) == (1, 1, True), "it answers on Play"
        for seed, table in enumerate([[python_client, js_client], [js_client, python_client, js_client]], start=1):
            assert play_game_over_grpc(table, seed=seed)  # no fault, every action legal
    finally:
        python_client.close()
        js_client.close()


def test_the_bot_kits_view_example_plays_whole_games(bots: BotLauncher) -> None:
    """docs/protocol.md "The bot kit's view, field by field": its example reads the trick,
    the seats still to play, the tricks won, the dog's life and the unseen cards."""
    view_bot = bots.start(EXAMPLES / "view_bot.py")
    first_bot = bots.start(EXAMPLES / "first_bot.py")

    async def hello_all() -> list[tuple[BotClient, HelloInfo]]:
        return [await connect(view_bot), await connect(first_bot)]

    (view_client, view_info), (first_client, _) = trio.run(hello_all)
    try:
        assert view_info.name == "view-bot"
        tables = [[view_client, first_client], [first_client, view_client, view_client, first_client], [view_client] * 3]
        for seed in range(1, 10):  # games long enough to put it on the dog's life, and as the last to play
            assert play_game_over_grpc(tables[seed % 3], seed=seed)  # no fault, every action legal
    finally:
        view_client.close()
        first_client.close()


@pytest.mark.usefixtures("needs_cpp")
def test_the_first_cpp_strategy_compiles() -> None:
    compiler = shutil.which("c++") or shutil.which("g++")
    pkg_config = shutil.which("pkg-config")
    require(None if compiler and pkg_config and CPP_GENERATED.is_dir() else "no C++ compiler, pkg-config or generated code")
    assert compiler is not None and pkg_config is not None
    flags = subprocess.run([pkg_config, "--cflags", "protobuf"], capture_output=True, text=True, check=True).stdout.split()
    result = subprocess.run(
        [compiler, "-std=c++17", "-fsyntax-only", f"-I{CPP_GENERATED}", f"-I{CPP_DIR}", *flags, str(EXAMPLES / "first_strategy.cpp")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.timeout(900)  # a cold Go build of grpc takes minutes on a busy machine
def test_the_go_recipe_builds_the_first_go_bot_which_plays_whole_games(bots: BotLauncher, short_tmp: Path) -> None:
    require(None if shutil.which("go") and shutil.which("protoc-gen-go") else "go or protoc-gen-go is not installed")
    recipe = re.search(r"<!-- run: go-debian [^>]*-->\n```sh\n(.*?)```\n", DOC.read_text(), re.DOTALL)
    assert recipe is not None, "the Debian Go recipe is no longer marked in docs/protocol.md"
    shutil.copy(EXAMPLES / "first_bot.go", short_tmp / "first_bot.go")
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # `referee` of this virtualenv
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", recipe[1]], cwd=short_tmp, env={**os.environ, "REFEREE": str(REPO), "PATH": path},
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "result:" in done.stdout  # the recipe's last line plays a traced game
    bot = bots.start(short_tmp / "first-bot", program=())

    async def hello() -> tuple[BotClient, HelloInfo]:
        return await connect(bot)

    client, info = trio.run(hello)
    try:
        assert (info.name, info.major) == ("first-go-bot", 1)
        for seed, table in enumerate([[client, client], [client, client, client]], start=1):
            assert play_game_over_grpc(table, seed=seed)  # no fault, every action legal
    finally:
        client.close()


@pytest.mark.timeout(900)
def test_the_java_recipe_builds_a_bot_that_passes_check_bot(short_tmp: Path) -> None:
    require(None if shutil.which("javac") and Path("/usr/bin/grpc_java_plugin").exists() else "javac or grpc_java_plugin is not installed")
    recipe = re.search(r"<!-- run: java-debian [^>]*-->\n```sh\n(.*?)```\n", DOC.read_text(), re.DOTALL)
    assert recipe is not None, "the Debian Java recipe is no longer marked in docs/protocol.md"
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # `referee` of this virtualenv
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", recipe[1]], cwd=short_tmp, env={**os.environ, "REFEREE": str(REPO), "PATH": path},
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks passed" in done.stdout and "FAIL" not in done.stdout
    assert (short_tmp / "mybot" / "build" / "kwhist-java-bot.jar").is_file()
