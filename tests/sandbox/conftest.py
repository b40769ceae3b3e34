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


@pytest.fixture
def rlimits_runs() -> None:
    """Skip where the rlimits mode refuses to run bots: a root referee whose Python other
    users cannot reach (it would have to run them as root; docs/sandbox.md)."""
    from referee.sandbox.command import python_paths
    from referee.sandbox.launch import rlimits_problem

    problem = rlimits_problem(list(python_paths()))
    if problem is not None:
        pytest.skip(f"rlimits mode refuses here: {problem}")


@pytest.fixture(params=["bwrap", "rlimits"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each contained mode; bwrap only where it runs (see needs_bwrap), rlimits only where
    it runs bots (see rlimits_runs)."""
    request.getfixturevalue("needs_bwrap" if request.param == "bwrap" else "rlimits_runs")
    return str(request.param)


@pytest.fixture(params=["bwrap", "rlimits", "rlimits-no-cgroup"])
def limit_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each contained mode, and rlimits without cgroups (the limits of a host that lets us
    write none: RLIMIT_AS for memory)."""
    request.getfixturevalue("needs_bwrap" if request.param == "bwrap" else "rlimits_runs")
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
def start(bot_dir: Path, run_dir: Path) -> Iterator[Launcher]:
    """``start(script, *args, mode=..., **settings)`` launches a test bot with a unique marker;
    at the end every process started is killed and no process of any of them may remain."""
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
        process = launch(
            command or ["python", script, *args],
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
