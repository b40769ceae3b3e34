"""Fixtures for the sandbox tests: bot scripts in a world-readable directory, and a launcher
that kills everything it started and asserts that no process of any bot remains."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from referee.sandbox import BotProcess, SandboxSettings, bwrap_problem, cgroups, kill_all, launch, userscope
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
    write none: RLIMIT_DATA for memory)."""
    request.getfixturevalue("needs_bwrap" if request.param == "bwrap" else "rlimits_python")
    if request.param == "rlimits-no-cgroup":
        monkeypatch.setattr(cgroups, "enabled", False)
        return "rlimits"
    return str(request.param)


FAKE_HOSTS = ("legacy", "hybrid", "v2", "v2-undelegated")


@pytest.fixture
def cgroup_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Path]]:
    """``cgroup_host(kind)`` points the cgroup probe (referee/sandbox/cgroups.py, and the user
    scopes' through it) at a host made under ``tmp_path``, and returns the root of its tree:

    - ``legacy``: memory, pids, cpu and freezer in the v1 hierarchy only, no v2 mount;
    - ``hybrid``: the same beside a v2 mount with no controllers (systemd's hybrid layout);
    - ``v2``: a v2 mount whose root (our cgroup) delegates memory, pids and cpu;
    - ``v2-undelegated``: a v2 mount whose root offers no memory or pids controller.

    The v1 trees look writable (plain directories), so a referee that used them would make
    its groups there. What was probed is forgotten before and after."""
    root = tmp_path / "cgroup"

    def make(kind: str) -> Path:
        assert kind in FAKE_HOSTS, kind
        mounts, own = [], []
        if kind in ("legacy", "hybrid"):
            for index, controller in enumerate(("cpu", "memory", "pids", "freezer"), start=1):
                (root / controller).mkdir(parents=True)
                (root / controller / "cgroup.procs").write_text("")
                mounts.append(f"{31 + index} 31 0:{29 + index} / {root / controller} rw,relatime - cgroup cgroup rw,{controller}")
                own.append(f"{index}:{controller}:/")
        if kind != "legacy":
            unified = root / "unified" if kind == "hybrid" else root
            unified.mkdir(parents=True, exist_ok=True)
            (unified / "cgroup.controllers").write_text("cpu memory pids\n" if kind == "v2" else "hugetlb\n")
            (unified / "cgroup.subtree_control").write_text("")
            mounts.append(f"41 31 0:38 / {unified} rw,relatime - cgroup2 cgroup2 rw")
            own.append("0::/")
        (tmp_path / "mountinfo").write_text("\n".join(mounts) + "\n")
        (tmp_path / "self-cgroup").write_text("\n".join(own) + "\n")
        monkeypatch.setattr(cgroups, "MOUNTINFO", tmp_path / "mountinfo")
        monkeypatch.setattr(cgroups, "OWN_CGROUP", tmp_path / "self-cgroup")
        _forget_probes()
        return root

    yield make
    if cgroups._probe.cache_info().currsize and (found := cgroups._probe()) is not None and root in found.group.parents:
        cgroups._release(found.group)  # the made host's group: its lock (the tree goes with tmp_path)
    _forget_probes()


def _forget_probes() -> None:
    cgroups._probe.cache_clear()
    userscope._probe.cache_clear()


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
