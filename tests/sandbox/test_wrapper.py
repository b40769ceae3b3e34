"""The start wrapper: a bot's process has its rlimits, cgroups and uid before it runs any of
its code, with the wrapper or without it (the preexec_fn path), and never runs once the
referee that started it is gone."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from referee.sandbox import SandboxSettings, cgroups, limits, wrapper
from referee.sandbox.bwrap import SLOT_UIDS
from referee.sandbox.settings import MiB
from tests.sandbox.helpers import DONE, REPORT, Launcher, bot_pids, reported_limit, wait_log

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]


@pytest.mark.parametrize("wrapped", [True, False], ids=["wrapper", "preexec"])
def test_the_bot_runs_with_its_limits_uid_and_cgroups(
    start: Launcher, mode: str, wrapped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if wrapped and not wrapper.available():
        pytest.skip("no start wrapper on this host")
    monkeypatch.setattr(wrapper, "enabled", wrapped)
    # /bin/sh is reachable by any user: as root, rlimits mode drops it to a slot uid too
    process = start("report", mode=mode, command=["/bin/sh", "-c", REPORT], open_files=200, file_size_mb=3, cpu_seconds=77)
    log = wait_log(process, DONE)
    assert DONE in log, log
    assert reported_limit(log, "Max open files") == ("200", "200")
    assert reported_limit(log, "Max file size") == (str(3 * MiB), str(3 * MiB))
    assert reported_limit(log, "Max cpu time") == ("77", "78")
    assert reported_limit(log, "Max core file size") == ("0", "0")
    if mode != "bwrap":  # (bwrap sets PWD itself, for --chdir)
        assert "PWD=" not in log  # the wrapper's shells add nothing to the environment
    if os.geteuid() == 0:
        assert f"UID {process.uid}" in log and process.uid in SLOT_UIDS
    found = cgroups.hierarchy()
    if found is not None:
        leaf = f"/{process.name}-{process.slot}"
        pids = bot_pids(process.marker)  # type: ignore[attr-defined]
        assert pids
        for pid in pids:  # every process of the bot (bwrap's too), seen from the host
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
            joined = [line for line in lines if line.endswith(leaf)]
            assert len(joined) == 1, lines


def test_under_bwrap_the_bot_alone_has_its_environment(start: Launcher, needs_bwrap: None) -> None:
    """The bot's variables reach it through bwrap's --setenv; the steps before bwrap and
    bwrap itself run with an empty environment (so no start loads a locale for them)."""
    process = start("report", mode="bwrap", command=["/bin/sh", "-c", REPORT], env={"KWHIST_PROBE": "yes"})
    log = wait_log(process, DONE)
    assert DONE in log, log
    lines = log.splitlines()
    for variable in ("KWHIST_PROBE=yes", "LANG=C.UTF-8", "HOME=/bot", "KWHIST_LISTEN=unix:/bot/bot.sock"):
        assert variable in lines, log
    assert Path(f"/proc/{process.pid}/environ").read_bytes() == b"", "bwrap's own environment"


@pytest.mark.parametrize("drop", [False, True])
def test_the_bot_never_runs_when_its_referee_is_gone(run_dir: Path, drop: bool) -> None:
    """The shell after setpriv's death signal checks its parent: a process whose referee died
    before the signal was set (here: whose parent is not the pid it was told) exits 111."""
    if not wrapper.available():
        pytest.skip("no start wrapper on this host")
    if drop and os.geteuid() != 0:
        pytest.skip("dropping to a slot uid needs root")
    witness = run_dir / "ran"
    run_dir.chmod(0o777)  # the slot uid writes it
    drop_args = ["--reuid=61183", "--regid=61183", "--clear-groups"] if drop else []
    for parent in (os.getpid() + 1_000_000, os.getpid()):
        argv = wrapper.wrapped_argv(["/usr/bin/touch", str(witness)], referee_pid=parent, drop_args=drop_args,
                                    limits=[(limits.resource.RLIMIT_CORE, 0, 0)])
        code = subprocess.run(argv, timeout=10).returncode
        expected = (wrapper.ORPHAN_EXIT, False) if parent != os.getpid() else (0, True)
        assert (code, witness.exists()) == expected


def test_a_cgroup_that_refuses_the_process_stops_the_start(tmp_path: Path) -> None:
    if not wrapper.available():
        pytest.skip("no start wrapper on this host")
    witness = tmp_path / "ran"
    refusing = tmp_path / "no-such-cgroup" / "cgroup.procs"
    argv = wrapper.wrapped_argv(["/usr/bin/touch", str(witness)], referee_pid=os.getpid(), join_files=[refusing])
    done = subprocess.run(argv, timeout=10, capture_output=True, text=True)
    assert done.returncode == wrapper.CGROUP_EXIT and not witness.exists()
    assert f"sandbox: cannot join cgroup {refusing}" in done.stderr


def test_prlimit_has_an_option_for_every_rlimit_we_set() -> None:
    for limit, _soft, _hard in limits.rlimits(SandboxSettings(), memory=True, nproc=64):
        argv = wrapper.wrapped_argv(["/usr/bin/true"], referee_pid=1, limits=[(limit, 1, 1)])
        assert argv[0].endswith("prlimit") and argv[1].endswith("=1:1") and argv[2] == "--"
