"""The exit detail names the limit a bot reached where the evidence tells (table-driven)."""

from __future__ import annotations

import pytest

from referee.sandbox import SandboxSettings
from referee.sandbox.detail import describe_exit, names_a_limit, telling_lines

S = SandboxSettings()


@pytest.mark.parametrize(
    ("code", "mode", "tail", "oom", "pids", "expected"),
    [
        (0, "rlimits", "", 0, 0, "exited with code 0"),
        (1, "bwrap", "Traceback\nValueError: x\n", 0, 0, "exited with code 1"),
        (-9, "rlimits", "", 1, 0, "killed by signal SIGKILL: memory limit 512 MiB reached (the config's [sandbox] memory_mb)"),
        (137, "bwrap", "", 1, 0, "killed by signal SIGKILL: memory limit 512 MiB reached (the config's [sandbox] memory_mb)"),
        (137, "rlimits", "", 0, 0, "exited with code 137"),  # only bwrap encodes signals as 128 + N
        (1, "rlimits", "Traceback\nMemoryError\n", 0, 0, "exited with code 1: memory limit 512 MiB reached (the config's [sandbox] memory_mb)"),
        (-24, "rlimits", "", 0, 0, "killed by signal SIGXCPU: CPU time limit 3600 s reached (the config's [sandbox] cpu_seconds)"),
        (152, "bwrap", "", 0, 0, "killed by signal SIGXCPU: CPU time limit 3600 s reached (the config's [sandbox] cpu_seconds)"),
        (-25, "rlimits", "", 0, 0, "killed by signal SIGXFSZ: file size limit 64 MiB reached (the config's [sandbox] file_size_mb)"),
        (1, "bwrap", "OSError: [Errno 27] File too large\n", 0, 0, "exited with code 1: file size limit 64 MiB reached (the config's [sandbox] file_size_mb)"),
        (1, "bwrap", "OSError: [Errno 24] Too many open files\n", 0, 0, "exited with code 1: open files limit 256 reached (the config's [sandbox] open_files)"),
        (1, "bwrap", "", 0, 3, "exited with code 1: process limit 64 reached (the config's [sandbox] pids)"),
        (-15, "none", "", 0, 0, "killed by signal SIGTERM"),
    ],
)
def test_describe_exit(code: int, mode: str, tail: str, oom: int, pids: int, expected: str) -> None:
    assert describe_exit(code, mode, S, tail, oom_kills=oom, pids_hits=pids) == expected
    assert names_a_limit(expected) == (":" in expected)


@pytest.mark.parametrize(
    "tail",
    [
        "RangeError: Array buffer allocation failed\n",  # Node's Buffer
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n",  # V8's heap
        "#\n# There is insufficient memory for the Java Runtime Environment to continue.\n#\n",  # the JVM
        'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n',
        "fatal error: out of memory allocating heap arena metadata\n",  # Go
        "#\n# Fatal process OOM in Failed to reserve virtual memory for CodeRange\n#\n",  # V8 at start
    ],
)
def test_each_runtimes_words_for_running_out_of_memory_name_the_memory_limit(tail: str) -> None:
    assert describe_exit(1, "bwrap", S, tail).endswith(": memory limit 512 MiB reached (the config's [sandbox] memory_mb)")


def test_a_frame_of_hashes_is_not_what_the_bot_said() -> None:
    jvm = "#\n# There is insufficient memory for the Java Runtime Environment to continue.\n# Native memory allocation (mmap) failed\n#\n"
    assert telling_lines(jvm) == [
        "# There is insufficient memory for the Java Runtime Environment to continue.",
        "# Native memory allocation (mmap) failed",
    ]
    assert telling_lines("\n---\n  \n") == []
