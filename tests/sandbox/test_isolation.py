"""Under bwrap a bot cannot read the referee's files, reach the network or see other
processes (sandbox.md table rows 11 and 12)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.sandbox.helpers import Launcher, log_text, wait_exit

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]


def _report(start: Launcher, mode: str, secret: Path, listener: socket.socket) -> dict[str, object]:
    port = listener.getsockname()[1]
    process = start("snoop.py", str(secret), str(port), mode=mode)
    assert wait_exit(process) == 0, log_text(process)
    line = next(line for line in log_text(process).splitlines() if line.startswith("REPORT "))
    report: dict[str, object] = json.loads(line.removeprefix("REPORT "))
    return report


def test_a_bwrap_bot_cannot_read_files_reach_the_network_or_see_processes(
    start: Launcher, needs_bwrap: None, secret: Path, listener: socket.socket
) -> None:
    report = _report(start, "bwrap", secret, listener)
    assert report["read"] == "FileNotFoundError"
    assert report["connect"] != "CONNECTED"
    with pytest.raises(BlockingIOError):
        listener.accept()  # the listener saw nothing
    proc = report["proc"]
    assert isinstance(proc, list) and report["pid"] in proc
    assert len(proc) <= 3 and max(proc) < 10  # bwrap's init and the bot, nothing of the host


def test_the_probe_bot_does_escape_without_bwrap(
    start: Launcher, secret: Path, listener: socket.socket, rlimits_python: str
) -> None:
    """The same bot in rlimits mode reads the file and connects: the test above can fail."""
    report = _report(start, "rlimits", secret, listener)
    assert report["read"] == "READ the referee's secret"
    assert report["connect"] == "CONNECTED"
    connection, _ = listener.accept()
    connection.close()
