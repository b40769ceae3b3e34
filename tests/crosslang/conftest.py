"""Fixtures of the cross-language tests (the ``bots`` launcher of the transport tests)."""

from __future__ import annotations

import pytest

from tests.crosslang.helpers import cpp_problem, go_problem, java_problem, node_problem, require
from tests.sandbox.conftest import bwrap_ok, needs_bwrap  # noqa: F401 (fixtures)
from tests.transport.conftest import bots

__all__ = ["bots", "bwrap_ok", "needs_bwrap", "needs_cpp", "needs_go", "needs_java", "needs_node"]


@pytest.fixture
def needs_node() -> None:
    """Skip where Node.js or the sample's node_modules are missing (a failure when CI=true)."""
    require(node_problem())


@pytest.fixture
def needs_cpp() -> None:
    """Skip where the C++ sample bot is not built (a failure when CI=true)."""
    require(cpp_problem())


@pytest.fixture
def needs_go() -> None:
    """Skip where the Go sample bot is not built (a failure when CI=true)."""
    require(go_problem())


@pytest.fixture
def needs_java() -> None:
    """Skip where the Java sample bot is not built (a failure when CI=true)."""
    require(java_problem())
