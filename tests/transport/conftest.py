"""Fixtures of the transport tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.transport.helpers import BotLauncher


@pytest.fixture
def bots(short_tmp: Path) -> Iterator[BotLauncher]:
    """Start bot processes with ``bots.start(script)``; every one is killed afterwards."""
    launcher = BotLauncher(short_tmp)
    try:
        yield launcher
    finally:
        launcher.close()
