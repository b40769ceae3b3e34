"""Fixtures for the sandbox tests: bot scripts in a world-readable directory, and a launcher
that kills everything it started and asserts that no process of any bot remains."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from referee.sandbox import BotProcess, SandboxSettings, bwrap_problem, cgroups, kill_all, launch
from tests.sandbox import runtime
from tests.sandbox.helpers import BOTS, MARKER_KEY, Launcher, bot_pids, next_slot


@pytest.fixture(scope="session")
def bwrap_ok() -> bool:
    return bwrap_problem() is None


@pytest.fixture
def needs_bwrap(bwrap_ok: bool) -> None:
    """Skip where bubblewrap cannot run, except in CI (CI=true), where that is a failure."""
    if not bwrap_ok:
        message = f"bubblewrap cannot run here: {bwrap_problem()}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def rlimits_python() -> Iterator[str]:
    """The Python of a test bot in the rlimits mode: ``python`` (the referee's own
    interpreter) where that mode runs it; else (a root referee whose Python other users
    cannot reach, say under root's home: the mode refuses it, docs/sandbox.md) a virtualenv
    of the system's Python that a slot uid can reach, built once (tests/sandbox/runtime.py).
    Skips where neither can run, except in CI (CI=true), where that is a failure."""
    if runtime.own_python_problem() is None:
        yield "python"
        return
    directory = runtime.reachable_directory("kws-python-")
    try:
        python = runtime.build_reachable_python(directory)
    except runtime.RuntimeProblem as error:
        shutil.rmtree(directory, ignore_errors=True)
        message = f"rlimits mode refuses the referee's Python here, and no Python other users can reach can be built: {error}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    yield str(python)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(params=["bwrap", "rlimits"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each contained mode; bwrap only where it runs (see needs_bwrap), rlimits only where
    it runs bots (see rlimits_python)."""
    request.getfixturevalue("needs_bwrap" if request.param == "bwrap" else "rlimits_python")
    return str(request.param)


@pytest.fixture(params=["bwrap", "rlimits", "rlimits-no-cgroup"])
def limit_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each contained mode, and rlimits without cgroups (the limits of a host that lets us
    write none: RLIMIT_AS for memory)."""
    request.getfixturevalue("needs_bwrap" if request.param == "bwrap" else "rlimits_python")
    if request.param == "rlimits-no-cgroup":
        monkeypatch.setattr(cgroups, "enabled", False)
        return "rlimits"
    return str(request.param)


def _short_dir(prefix: str) -> Path:
    directory = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    directory.chmod(0o755)
    return directory


@pytest.fixture(scope="session")
def bot_dir() -> Iterator[Path]:
    """The test bots, copied to a short, world-readable directory (the sandbox user must read
    them; pytest's own tmp_path is 0700)."""
    directory = _short_dir("kws-bots-")
    for script in [*BOTS.glob("*.py"), *BOTS.glob("*.js")]:
        target = directory / script.name
        shutil.copyfile(script, target)
        target.chmod(0o644)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def run_dir() -> Iterator[Path]:
    directory = _short_dir("kws-run-")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)



@pytest.fixture
def start(bot_dir: Path, run_dir: Path, request: pytest.FixtureRequest) -> Iterator[Launcher]:
    """``start(script, *args, mode=..., **settings)`` launches a test bot with a unique marker
    (``python script args``; in the rlimits mode with :func:`rlimits_python`); at the end
    every process started is killed and no process of any of them may remain."""
    started: list[tuple[BotProcess, str]] = []

    def _start(
        script: str,
        *args: str,
        mode: str = "bwrap",
        env: Mapping[str, str] | None = None,
        command: Sequence[str] | None = None,
        **limits: object,
    ) -> BotProcess:
        marker = uuid.uuid4().hex
        settings = SandboxSettings(mode=mode, **limits)  # type: ignore[arg-type]
        argv = list(command or ["python", script, *args])
        if mode == "rlimits" and argv[0] in ("python", "python3"):
            argv[0] = request.getfixturevalue("rlimits_python")
        process = launch(
            argv,
            name=script.rsplit(".", 1)[0],
            slot=next_slot(),
            bot_dir=bot_dir,
            run_dir=run_dir,
            settings=settings,
            env={MARKER_KEY: marker, **(env or {})},
        )
        process.marker = marker  # type: ignore[attr-defined]
        started.append((process, marker))
        return process

    yield _start
    for process, _marker in started:
        process.kill()
    kill_all()
    leftovers = {marker: bot_pids(marker) for _process, marker in started}
    assert not any(leftovers.values()), f"bot processes left: {leftovers}"
