"""Headless Chromium for the web tests: Debian's ``chromium`` driven by Playwright (never a
downloaded browser). Skipped where it is missing, except with CI=true, where that fails."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]  # fmt: skip


def browser_problem() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    problem = browser_problem()
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(problem)
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=120_000)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def module_tmp() -> Iterator[Path]:
    """A short private folder for one module's league (Unix socket paths stay < 108 bytes)."""
    import tempfile

    directory = Path(tempfile.mkdtemp(prefix="kw-web-", dir="/tmp"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)
