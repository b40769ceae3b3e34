"""The exit detail names the limit a bot reached where the evidence tells (table-driven)."""

from __future__ import annotations

import pytest

from referee.sandbox import SandboxSettings
from referee.sandbox.detail import describe_exit

S = SandboxSettings()


@pytest.mark.parametrize(
    ("code", "mode", "tail", "oom", "pids", "expected"),
    [
        (0, "rlimits", "", 0, 0, "exited with code 0"),
        (1, "bwrap", "Traceback\nValueError: x\n", 0, 0, "exited with code 1"),
        (-9, "rlimits", "", 1, 0, "killed by signal SIGKILL: memory limit 512 MiB reached"),
        (137, "bwrap", "", 1, 0, "killed by signal SIGKILL: memory limit 512 MiB reached"),
        (137, "rlimits", "", 0, 0, "exited with code 137"),  # only bwrap encodes signals as 128 + N
        (1, "rlimits", "Traceback\nMemoryError\n", 0, 0, "exited with code 1: memory limit 512 MiB reached"),
        (-24, "rlimits", "", 0, 0, "killed by signal SIGXCPU: CPU time limit 3600 s reached"),
        (152, "bwrap", "", 0, 0, "killed by signal SIGXCPU: CPU time limit 3600 s reached"),
        (-25, "rlimits", "", 0, 0, "killed by signal SIGXFSZ: file size limit 64 MiB reached"),
        (1, "bwrap", "OSError: [Errno 27] File too large\n", 0, 0, "exited with code 1: file size limit 64 MiB reached"),
        (1, "bwrap", "OSError: [Errno 24] Too many open files\n", 0, 0, "exited with code 1: open files limit 256 reached"),
        (1, "bwrap", "", 0, 3, "exited with code 1: process limit 64 reached"),
        (-15, "none", "", 0, 0, "killed by signal SIGTERM"),
    ],
)
def test_describe_exit(code: int, mode: str, tail: str, oom: int, pids: int, expected: str) -> None:
    assert describe_exit(code, mode, S, tail, oom_kills=oom, pids_hits=pids) == expected
