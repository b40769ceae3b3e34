"""Shared helpers of the cross-language tests: where the sample bots are, whether
they can run here (skip, or fail when CI=true), and the doc's example code blocks."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.transport.helpers import BotLauncher, RunningBot

NODE_DIR = REPO / "sample_bots" / "node"
NODE_BOT = NODE_DIR / "bot.js"
NODE_MODULES = NODE_DIR / "node_modules"
CPP_DIR = REPO / "sample_bots" / "cpp"
CPP_BOT = CPP_DIR / "build" / "kwhist_cpp_bot"
CPP_GENERATED = CPP_DIR / "build" / "gen"
GO_DIR = REPO / "sample_bots" / "go"
GO_BOT = GO_DIR / "build" / "kwhist_go_bot"
JAVA_DIR = REPO / "sample_bots" / "java"
JAVA_JAR = JAVA_DIR / "build" / "kwhist-java-bot.jar"
JAVA_COMMAND = ["java", "-XX:+UseSerialGC", "-jar", str(JAVA_JAR)]
PROTO = REPO / "protos" / "knockout_whist" / "v1" / "bot.proto"
DOC = REPO / "docs" / "protocol.md"
EXAMPLES = REPO / "docs" / "examples"


def require(problem: str | None) -> None:
    """Skip the test when ``problem`` names something missing, except in CI (CI=true),
    where that is a failure (`make bots` should have built it)."""
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{problem} (CI=true: run `make bots` first)")
    pytest.skip(f"{problem}; run `make bots`")


def node_problem() -> str | None:
    """Why the Node bot cannot run here, or None."""
    if shutil.which("node") is None:
        return "node (Node.js) is not on PATH"
    if not (NODE_MODULES / "@grpc" / "grpc-js").is_dir() or not (NODE_MODULES / "@grpc" / "proto-loader").is_dir():
        return f"{NODE_MODULES} lacks @grpc/grpc-js or @grpc/proto-loader (npm ci)"
    return None


def cpp_problem() -> str | None:
    """Why the C++ bot cannot run here, or None."""
    if not CPP_BOT.is_file() or not os.access(CPP_BOT, os.X_OK):
        return f"{CPP_BOT} is not built"
    return None


def go_problem() -> str | None:
    """Why the Go bot cannot run here, or None."""
    if not GO_BOT.is_file() or not os.access(GO_BOT, os.X_OK):
        return f"{GO_BOT} is not built"
    return None


def java_problem() -> str | None:
    """Why the Java bot cannot run here, or None."""
    if shutil.which("java") is None:
        return "java is not on PATH (apt-get install default-jdk-headless)"
    if not JAVA_JAR.is_file():
        return f"{JAVA_JAR} is not built"
    return None


def link_or_copy(source: str, target: str) -> None:
    """A ``copy_function`` for ``shutil.copytree``: a hard link where the file system allows."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def readable_by_all(folder: Path) -> None:
    """Let every user read ``folder`` and what is in it (a normal user's referee, a slot uid)."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink() and path.stat().st_nlink == 1:  # a hard link shares its mode with the original
            path.chmod(path.stat().st_mode | (0o555 if path.is_dir() else 0o444))


def start_go(bots: BotLauncher) -> RunningBot:
    return bots.start(GO_BOT, program=())


def start_node(bots: BotLauncher, script: Path = NODE_BOT, env: dict[str, str] | None = None) -> RunningBot:
    """Run ``node script`` with ``KWHIST_LISTEN`` set; packages come from the sample's
    node_modules also for a script elsewhere (NODE_PATH)."""
    node = shutil.which("node")
    assert node is not None
    return bots.start(script, {"NODE_PATH": str(NODE_MODULES), **(env or {})}, program=(node,))


def start_cpp(bots: BotLauncher) -> RunningBot:
    return bots.start(CPP_BOT, program=())


def start_java(bots: BotLauncher) -> RunningBot:
    return bots.start(JAVA_JAR, program=JAVA_COMMAND[:-1])


_MARKED_BLOCK = re.compile(r"<!-- file: (?P<path>[^ ]+) -->\n```[a-z]*\n(?P<code>.*?)```\n", re.DOTALL)


def doc_examples(text: str) -> dict[str, str]:
    """{repository path: code} of every fenced block marked ``<!-- file: PATH -->`` in ``text``."""
    return {match["path"]: match["code"] for match in _MARKED_BLOCK.finditer(text)}
