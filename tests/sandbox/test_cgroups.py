"""cgroup v2 only (referee/sandbox/cgroups.py, docs/sandbox.md "Limits"), on hosts the tests
make (the ``cgroup_host`` fixture): a v2 hierarchy that delegates its controllers gives each
bot process a leaf with its limits; a host that keeps its controllers in the older v1
hierarchy gets no cgroup at all, the limits of a host without cgroups, and one line at start
that says so."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.sandbox import SandboxSettings, bwrap_problem, cgroups, league_mode, nproc, resolve_mode
from referee.sandbox.settings import MiB
from tests.conftest import REPO
from tests.sandbox.helpers import DONE, REPORT, Launcher, reported_limit, wait_log

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]

MakeHost = Callable[[str], Path]


@pytest.mark.parametrize("kind", ["legacy", "hybrid"])
def test_a_host_with_only_cgroup_v1_controllers_gets_no_cgroup_and_one_line_at_start(
    cgroup_host: MakeHost, kind: str
) -> None:
    root = cgroup_host(kind)
    assert cgroups.hierarchy() is None
    assert not list(root.rglob("kwhist-*")), "nothing is made in the v1 hierarchy"
    assert cgroups.Cgroup.create("alpha-1", SandboxSettings()) is None
    assert cgroups.warning() == cgroups.LEGACY_WARNING
    warnings = [resolve_mode(SandboxSettings(mode="rlimits"))[1]]
    if bwrap_problem() is None:
        warnings += [resolve_mode(SandboxSettings(mode="auto"))[1], league_mode(SandboxSettings(mode="auto"), "night.toml")[1]]
    for warning in warnings:  # what check-bot, play and a league print at start
        assert warning is not None and warning.splitlines().count(cgroups.LEGACY_WARNING) == 1, warning
        assert "cgroup controllers not available" not in warning
    assert cgroups.LEGACY_WARNING in (REPO / "docs" / "sandbox.md").read_text(), "the docs show the line as it is"


def test_a_v2_host_that_delegates_nothing_is_told_apart_from_a_v1_host(cgroup_host: MakeHost) -> None:
    cgroup_host("v2-undelegated")
    assert cgroups.hierarchy() is None
    assert cgroups.warning() == cgroups.NO_CGROUP_WARNING


def test_a_v2_host_gives_each_bot_process_a_leaf_with_its_limits(cgroup_host: MakeHost) -> None:
    root = cgroup_host("v2")
    found = cgroups.hierarchy()
    assert found is not None and found.group.parent == root and found.missing == ()
    assert set((root / "cgroup.subtree_control").read_text().split()) == {"+memory", "+pids", "+cpu"}
    assert cgroups.warning() is None
    leaf = cgroups.Cgroup.create("alpha-1", SandboxSettings(memory_mb=100, pids=9))
    assert leaf is not None and leaf.path == found.group / "alpha-1"
    assert (leaf.path / "memory.max").read_text() == str(100 * MiB)
    assert (leaf.path / "pids.max").read_text() == "9"
    assert leaf.join_files() == [leaf.path / "cgroup.procs"]
    assert leaf.limits_memory and leaf.limits_pids and leaf.describe() == "cpu,memory,pids"
    (leaf.path / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 2\n")
    (leaf.path / "pids.events").write_text("max 7\n")
    assert (leaf.oom_kills(), leaf.pids_limit_hits()) == (2, 7)


def test_a_v2_host_without_the_cpu_controller_names_it_at_start(cgroup_host: MakeHost) -> None:
    root = cgroup_host("v2")
    (root / "cgroup.controllers").write_text("memory pids\n")
    found = cgroups.hierarchy()
    assert found is not None and found.missing == ("cpu",)
    assert cgroups.warning() == "sandbox: cgroup controllers not available here: cpu (the rlimits stand in)"
    leaf = cgroups.Cgroup.create("alpha-1", SandboxSettings())
    assert leaf is not None and leaf.missing == ["cpu"] and leaf.describe() == "memory,pids"


def test_on_a_cgroup_v1_host_a_bot_gets_the_limits_of_a_host_without_cgroups(
    cgroup_host: MakeHost, start: Launcher, mode: str
) -> None:
    """Memory by RLIMIT_DATA, processes by RLIMIT_NPROC for the bot alone (its slot uid under a
    root referee; a normal user's, inside its own user namespace where the kernel counts
    there), no cgroup."""
    cgroup_host("hybrid")
    process = start("report", mode=mode, command=["/bin/sh", "-c", REPORT], memory_mb=300, pids=40)
    log = wait_log(process, DONE)
    assert DONE in log, log
    first = log.splitlines()[0]
    assert "cgroup none, RLIMIT_DATA on" in first, first
    assert reported_limit(log, "Max data size") == (str(300 * MiB), str(300 * MiB))
    if os.geteuid() == 0 or nproc.per_bot(mode):
        assert reported_limit(log, "Max processes") == ("40", "40")
    else:  # the kernel counts per uid only: one bound for the uid (said at start by nproc.warning)
        assert reported_limit(log, "Max processes")[0] != "unlimited"
