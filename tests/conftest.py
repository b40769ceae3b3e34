"""Shared test helpers: run the referee as a real process, find leftover bot processes."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.normal_user import NormalUser, normal_user

REPO = Path(__file__).resolve().parents[1]


def processes_matching(marker: str) -> list[tuple[int, str]]:
    """(pid, cmdline) of every live process whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = next((line for line in (entry / "status").read_text().splitlines() if line.startswith("State:")), "")
        except OSError:
            continue
        if marker in cmdline and "Z (zombie)" not in state:
            found.append((int(entry.name), cmdline))
    return found


def run_referee(*args: str, cwd: Path = REPO, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """``python -m referee ARGS`` as a real process; returns its output (text)."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def stored_games(results: Path) -> int:
    """Games stored in the results file ``results`` so far (0 before it exists or while it
    cannot be read), for tests that watch a running referee."""
    import sqlite3

    try:
        with sqlite3.connect(results) as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def write_config(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary directory with a short path (Unix socket paths must stay < 108 bytes)."""
    import shutil
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="kw-", dir="/tmp"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def secret() -> Iterator[Path]:
    """A world-readable file outside every bot's directory: only the sandbox can hide it."""
    import shutil
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="kw-secret-", dir="/tmp"))
    directory.chmod(0o755)
    path = directory / "secret.txt"
    path.write_text("the referee's secret")
    path.chmod(0o644)
    yield path
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on 127.0.0.1 that a sandboxed bot must not reach."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture(scope="session")
def as_normal_user() -> Iterator[NormalUser]:
    """A normal user to run a referee as, for the whole session (tests/normal_user.py): this
    one, or under root a throwaway uid with a Python it can reach. Skips where none can be
    had, except in CI (CI=true), where that is a failure."""
    from tests.sandbox import runtime

    with contextlib.ExitStack() as stack:
        try:
            user = stack.enter_context(normal_user())
        except (runtime.RuntimeProblem, RuntimeError) as error:
            message = f"cannot run the referee as a normal user here: {error}"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
        yield user


@contextlib.contextmanager
def busy_loops(count: int) -> Iterator[int]:
    """``count`` busy loops (``while True: pass``) for the length of the block, killed at its
    end: a bounded hog; yields ``count``."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield count
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


@pytest.fixture
def cpu_hog() -> Iterator[int]:
    """A loaded machine: 4 busy loops per core (load >= 4 x cores) for the test's length;
    yields how many run."""
    with busy_loops(4 * (os.cpu_count() or 1)) as count:
        yield count


PATHS = ("unary", "stream")  # how the referee asks a bot its decisions (docs/protocol.md)


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest) -> str:
    """A test runs twice: its Python bots offering only unary ``Decide`` (``--unary``),
    then ``Play`` streams (docs/design.md §4): faults and time control are alike on both."""
    return str(request.param)


def on_path(command: list[str], path: str) -> list[str]:
    """``command`` of a Python bot (kit or tests' raw bot) as it runs on ``path``."""
    return [*command, "--unary"] if path == "unary" and "--unary" not in command else command


def assert_asked_over(logs: Path, path: str) -> None:
    """Every bot log under ``logs`` that shows a Hello says the referee asked over ``path``."""
    said = "decisions over unary Decide" if path == "unary" else "decisions over the Play stream"
    hellos = [line for log in logs.glob("*.log") for line in log.read_text(errors="replace").splitlines() if "[referee] Hello:" in line]
    assert hellos, f"no Hello in the logs under {logs}"
    assert all(said in line for line in hellos), hellos
