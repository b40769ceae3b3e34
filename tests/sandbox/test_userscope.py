"""A normal user's bots in systemd user scopes (referee/sandbox/userscope.py): where no
cgroup of our own is writable and a systemd user manager is reachable, each bot process is
started by ``systemd-run --user --scope`` with its limits as the scope's properties, and the
variables that find the user bus never reach the bot. No user manager runs where the tests
run, so a stand-in ``systemd-run`` here records its arguments and runs the rest of its argv
(the limits themselves are systemd's; a real scope's pids.max is what the probe reads back)."""

from __future__ import annotations

import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.sandbox import cgroups, modes, userscope
from referee.sandbox.settings import SandboxSettings
from tests.sandbox.helpers import Launcher, wait_log

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(90)]

STAND_IN = """#!/bin/sh
# systemd-run --user --scope ... -- COMMAND: record the options, run COMMAND in this process
printf '%s\\n' "$@" > "$(dirname "$0")/args"
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
exec "$@"
"""


@pytest.fixture
def manager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[userscope.UserManager]:
    """A user manager whose systemd-run is the stand-in, and no cgroup of our own."""
    tool = Path("/tmp") / f"kw-{tmp_path.name}"  # reachable: under a root referee the stand-in runs as the slot uid
    tool.mkdir(exist_ok=True)
    tool.chmod(0o777)
    script = tool / "systemd-run"
    script.write_text(STAND_IN)
    script.chmod(stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    found = userscope.UserManager(
        str(script), frozenset({"memory", "pids", "cpu"}), tool / "slice", (("XDG_RUNTIME_DIR", "/run/user/4242"),)
    )
    monkeypatch.setattr(cgroups, "enabled", False)
    monkeypatch.setattr(userscope, "available", lambda: found)
    yield found
    shutil.rmtree(tool, ignore_errors=True)


def test_a_scope_carries_the_bots_limits_as_its_properties(manager: userscope.UserManager) -> None:
    settings = SandboxSettings(pids=48, memory_mb=300, cpus=0.5)
    scope = userscope.ScopeCgroup.for_bot("alpha-3", settings, manager)
    argv = scope.argv_prefix()
    run = argv.index(manager.systemd_run)
    assert argv[:run] == [argv[0], "XDG_RUNTIME_DIR=/run/user/4242"]  # env, for systemd-run only
    assert argv[run + 1 : run + 5] == ["--user", "--scope", "--quiet", "--collect"]
    assert ["-pTasksMax=48", "-pMemoryMax=300M", "-pMemorySwapMax=0", "-pCPUQuota=50%"] == [a for a in argv if a.startswith("-p")]
    assert argv[-3:] == ["--", argv[0], "--unset=XDG_RUNTIME_DIR"]  # gone before the bot runs
    assert scope.limits_memory and scope.limits_pids and scope.join_files() == []
    assert scope.path == manager.slice / f"{scope.unit}.scope"
    assert userscope.ScopeCgroup.for_bot("alpha-3", settings, manager).unit != scope.unit


def test_without_the_cpu_controller_the_scope_says_so(manager: userscope.UserManager) -> None:
    partial = userscope.UserManager(manager.systemd_run, frozenset({"memory", "pids"}), manager.slice, manager.bus)
    scope = userscope.ScopeCgroup.for_bot("beta-1", SandboxSettings(), partial)
    assert scope.missing == ["cpu"] and not any(a.startswith("-pCPUQuota") for a in scope.argv_prefix())


@pytest.mark.parametrize("mode", ["bwrap", "rlimits"])
def test_a_bot_starts_in_its_scope_and_never_sees_the_bus(
    mode: str, manager: userscope.UserManager, start: Launcher, request: pytest.FixtureRequest
) -> None:
    request.getfixturevalue("needs_bwrap" if mode == "bwrap" else "rlimits_python")
    process = start("environment.py", mode=mode, pids=40)
    log = wait_log(process, "ENV ")
    first = log.splitlines()[0]
    assert "cgroup systemd user scope kwhist-" in first and "(cpu,memory,pids)" in first, first
    names = next(line for line in log.splitlines() if line.startswith("ENV ")).split(" ", 1)[1].split(",")
    assert "XDG_RUNTIME_DIR" not in names and "KWHIST_LISTEN" in names
    args = (Path(manager.systemd_run).parent / "args").read_text().splitlines()
    assert "--scope" in args and "-pTasksMax=40" in args
    process.kill()
    assert process.poll() is not None


def test_the_start_line_names_only_the_controllers_scopes_lack(manager: userscope.UserManager, monkeypatch: pytest.MonkeyPatch) -> None:
    assert modes.limits_warning("bwrap") is None
    partial = userscope.UserManager(manager.systemd_run, frozenset({"memory", "pids"}), manager.slice, manager.bus)
    monkeypatch.setattr(userscope, "available", lambda: partial)
    assert modes.limits_warning("bwrap") == "sandbox: cgroup controllers not available here: cpu (the rlimits stand in)"
