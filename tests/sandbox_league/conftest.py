"""Fixtures of the league-level sandbox tests: bwrap must run (else skip, or fail when
CI=true: the fixtures of tests/sandbox), and each test's bots copied to a fresh directory
whose path marks every process of that test's bots."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.normal_user import NormalUser
from tests.sandbox.conftest import bwrap_ok, cgroup_host, needs_bwrap, rlimits_python  # noqa: F401 (fixtures)
from tests.sandbox_league.helpers import Staged


@pytest.fixture
def staged(needs_bwrap: None) -> Iterator[Staged]:
    """``staged(script, ...)`` copies bot scripts (paths, or names in bots/ here) with the
    shared ``onthird.py`` and the sample random bot to a fresh world-readable directory
    (the sandbox's user must read them) and returns their new paths; ``staged.dir``."""
    directory = Path(tempfile.mkdtemp(prefix="kwsl-", dir="/tmp"))
    directory.chmod(0o755)
    yield Staged(directory)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(params=["root", "normal-user"])
def referee_user(request: pytest.FixtureRequest) -> NormalUser | None:
    """Who runs the referee: None for root (the test's own process; skipped where the tests
    do not run as root), else the normal user (``as_normal_user``)."""
    if request.param == "root":
        if os.geteuid() != 0:
            pytest.skip("the tests do not run as root")
        return None
    user: NormalUser = request.getfixturevalue("as_normal_user")
    return user


__all__ = ["bwrap_ok", "cgroup_host", "needs_bwrap", "referee_user", "rlimits_python", "staged"]
