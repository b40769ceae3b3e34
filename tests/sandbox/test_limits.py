"""Misbehaving bots meet the limits (sandbox.md table rows 4-8), in bwrap and rlimits mode."""

from __future__ import annotations

import re
import resource
import subprocess

import pytest

from referee.sandbox import SandboxSettings
from tests.sandbox.helpers import Launcher, bot_pids, log_text, wait_exit, wait_log

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(90)]


def test_fork_bomb_fails_inside_the_bot(start: Launcher, mode: str) -> None:
    process = start("fork_bomb.py", mode=mode, pids=32)
    log = wait_log(process, "FORKED")
    match = re.search(r"FORKED (\d+) ERROR (\w+)", log)
    assert match, log
    assert int(match.group(1)) < 32
    assert match.group(2) in ("BlockingIOError", "OSError")
    assert subprocess.run(["true"], timeout=10).returncode == 0  # the referee can still fork
    assert len(bot_pids(process.marker)) > 10  # type: ignore[attr-defined]
    process.kill()
    assert bot_pids(process.marker) == set()  # type: ignore[attr-defined]


def test_allocating_10_gib_stops_at_the_memory_limit(start: Launcher, limit_mode: str) -> None:
    process = start("memory_hog.py", mode=limit_mode, memory_mb=256)
    code = wait_exit(process)
    assert code != 0
    detail = process.exit_detail()
    assert detail is not None and "memory limit 256 MiB reached" in detail, detail
    assert "ALLOCATED" not in log_text(process)


def test_a_5_gib_file_stops_at_the_file_size_limit(start: Launcher, limit_mode: str) -> None:
    process = start("big_file.py", mode=limit_mode, file_size_mb=16)
    wait_exit(process)
    assert f"SIZE {16 * 1024 * 1024}\n" in log_text(process)
    detail = process.exit_detail()
    assert detail is not None and "file size limit 16 MiB reached" in detail, detail


def test_opening_100k_files_stops_at_the_open_files_limit(start: Launcher, limit_mode: str) -> None:
    process = start("many_files.py", mode=limit_mode, open_files=64)
    wait_exit(process)
    match = re.search(r"OPENED (\d+)", log_text(process))
    assert match, log_text(process)
    assert 0 < int(match.group(1)) < 64
    detail = process.exit_detail()
    assert detail is not None and "open files limit 64 reached" in detail, detail


def test_1_gib_of_output_is_capped_and_counted_and_referee_memory_stays_flat(start: Launcher, limit_mode: str) -> None:
    before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    process = start("flood.py", mode=limit_mode, output_kb=16)
    assert wait_exit(process, timeout_s=60) == 0
    process.kill()
    growth_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_kib) / 1024
    assert growth_mib < 100
    size = process.log_path.stat().st_size
    assert size < 200 * 1024
    log = log_text(process)
    half = 512 * 1024 * 1024
    kept = 2 * 16 * 1024
    assert f"[stdout: {half} bytes, {half - kept} dropped]" in log
    assert log.rstrip().endswith(f"[stderr: {half} bytes, {half - kept} dropped]")
    assert process.exit_detail() == "exited with code 0"


def test_a_busy_loop_stops_at_the_cpu_time_limit(start: Launcher, limit_mode: str) -> None:
    process = start("busy.py", mode=limit_mode, cpu_seconds=1)
    wait_exit(process)
    assert process.exit_detail() == "killed by signal SIGXCPU: CPU time limit 1 s reached (the config's [sandbox] cpu_seconds)"


def test_tmp_is_a_small_tmpfs_under_bwrap(start: Launcher, needs_bwrap: None) -> None:
    process = start("tmp_fill.py", mode="bwrap", tmp_mb=4)
    assert wait_exit(process) == 0
    match = re.search(r"SIZE (\d+) ERROR (.*)", log_text(process))
    assert match, log_text(process)
    assert int(match.group(1)) <= 4 * 1024 * 1024
    assert match.group(2) == "No space left on device"


def test_a_controller_that_cannot_be_applied_is_a_warning_at_start_and_in_the_log(
    start: Launcher, needs_bwrap: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.sandbox import cgroups, resolve_mode

    real = cgroups.hierarchy()
    if real is None:
        pytest.skip("no writable cgroup v2 here")
    fake = cgroups.Hierarchy(real.group, ("cpu",))
    monkeypatch.setattr(cgroups, "hierarchy", lambda: fake)
    _mode, warning = resolve_mode(SandboxSettings(mode="bwrap"))
    assert warning is not None and "cgroup controllers not available here: cpu" in warning
    process = start("sleeper.py", mode="bwrap")
    assert "warning: cgroup controllers not applied: cpu" in wait_log(process, "READY")
