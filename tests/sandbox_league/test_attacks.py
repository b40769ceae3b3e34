"""Issue 12: bots that attack the referee or each other, one league per class of attack.

Each plays a tiny league (the attacker ``bad`` against the sample random bot, under
bubblewrap unless said otherwise) and checks the attacker's fault kind, that the league
completes with the other bot's games intact, that nothing is left behind (processes, the
bot's home), and that nothing of the attack reached the other seat or the host."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import HostError
from referee.sandbox import cgroups
from tests.conftest import REPO, processes_matching, run_referee
from tests.sandbox.helpers import wait_for

from tests.sandbox_league.helpers import (
    BAD,
    OTHER,
    ROTATIONS,
    League,
    Staged,
    assert_league_intact,
    assert_no_process_left,
    assert_sandboxed,
    faults_of,
    mine,
    run_in_process,
    write_league,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(180)]


def _homes_left(league: League) -> list[Path]:
    """Bot homes left on the host: directories next to the logs (none under bwrap)."""
    return [path for path in league.run_dir.iterdir() if path.is_dir()] if league.run_dir.exists() else []


def _bad_faults(league: League) -> list[list[str]]:
    records, _ = run_in_process(league)
    assert_league_intact(records)
    return [[fault.kind for fault in faults_of(record)] for record in records]


def test_class1_a_bot_linking_its_socket_to_another_bots_socket_gets_a_startup_fault(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("socket_thief_bot.py")], staged, startup_ms=3000)
    records, _ = run_in_process(league)
    assert_league_intact(records)
    assert_sandboxed(league)
    for record in records:
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["startup"], faults
        assert "is a symbolic link, not a socket it bound" in faults[0].detail, faults[0].detail
        assert all(action.ms is None for _, action in mine(record)), "the referee plays its seat: no process answered for it"
        assert all(action.ms is not None for _, action in mine(record, OTHER))
    assert "socket_thief: " in league.log_text(), "the attack was made"
    assert not _homes_left(league)
    assert_no_process_left(staged.dir)


@pytest.mark.parametrize("mode", ["bwrap", "rlimits"])
def test_class2_a_tree_1500_deep_with_mode_000_is_cleaned_up_and_the_league_goes_on(
    short_tmp: Path, staged: Staged, secret: Path, mode: str, request: pytest.FixtureRequest
) -> None:
    python = request.getfixturevalue("rlimits_python") if mode == "rlimits" else "python"
    league = write_league(short_tmp, [staged("deep_tree_bot.py"), str(secret)], staged, mode=mode, python=python)
    for kinds in _bad_faults(league):
        assert kinds == ["crash"], kinds
    for bot in (BAD, OTHER):
        assert_sandboxed(league, bot, mode)
    assert league.log_text().count("deep_tree: 1500 levels built") == 2, "each process built its tree"
    assert len(league.logs()) == 2, "restarted for the second game"
    assert secret.read_text() == "the referee's secret", "the link's target is untouched"
    assert not _homes_left(league), "every home is removed"
    assert "clean-up" not in league.log_text()
    assert_no_process_left(staged.dir)


def test_class3_the_home_is_bounded_in_total(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("disk_fill_bot.py")], staged)
    league.config.write_text(league.config.read_text().replace("[sandbox]\n", "[sandbox]\nhome_mb = 16\n"))
    records, _ = run_in_process(league)
    assert_league_intact(records)
    assert_sandboxed(league)
    for record in records:
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["malformed"], faults
        wrote = faults[0].detail.split("WROTE ", 1)[1].split()
        assert int(wrote[0]) <= 16 * 1024 * 1024 and wrote[1] == "OSError:28", wrote  # ENOSPC at home_mb
    assert not _homes_left(league)
    assert_no_process_left(staged.dir)


UNSAFE = ("\x1b", "\x9b", "\x07", "\r")


def test_class7_bot_text_reaches_no_terminal_unescaped(short_tmp: Path, staged: Staged) -> None:
    """Its gRPC error details (a ``malformed`` fault), Hello name and author, and stderr are
    full of escape sequences: ``referee faults`` and ``referee check-bot`` print them inert."""
    script = staged("escape_bot.py")
    league = write_league(short_tmp, [script], staged)
    records, _ = run_in_process(league)
    assert_league_intact(records)
    for record in records:
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["malformed"], faults
        assert "\x1b[2J" in faults[0].detail, "the record keeps the bot's text as it was"
    done = run_referee("faults", str(league.results))
    assert done.returncode == 0, done.stderr
    assert not [char for char in UNSAFE if char in done.stdout], repr(done.stdout)
    assert "cleared \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x9b31mRED" in done.stdout, done.stdout
    checked = run_referee("check-bot", "--startup-ms", "30000", "--move-ms", "5000", "--", "python", str(script), timeout=600)
    assert "esc\\x1b[2J" in checked.stdout, checked.stdout
    assert not [char for char in UNSAFE if char in checked.stdout + checked.stderr], repr(checked.stdout)
    assert_no_process_left(staged.dir)


def test_class8_bots_get_sigterm_and_a_grace_at_the_end_of_a_league(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("term_bot.py")], staged)
    records, _ = run_in_process(league)
    assert_league_intact(records)
    assert not [fault for record in records for fault in record.faults]
    assert league.log_text().count("term: stopped cleanly") == ROTATIONS, league.log_text()
    assert not _homes_left(league)
    assert_no_process_left(staged.dir)


def test_class8_bots_get_sigterm_and_a_grace_on_ctrl_c(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("term_bot.py"), "--stall"], staged, move_ms=120_000)
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(league.config), "--no-live"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: "STALLING" in league.log_text(), 60), league.log_text()
        referee.send_signal(signal.SIGINT)
        referee.wait(60)
    finally:
        referee.kill()
        referee.wait(30)
    assert wait_for(lambda: "term: stopped cleanly" in league.log_text(), 10), league.log_text()
    assert_no_process_left(staged.dir, timeout_s=20)


def test_class6_two_bots_cannot_pass_a_hand_through_file_locks(short_tmp: Path, staged: Staged) -> None:
    """The sender holds an exclusive flock on a file both bots read; the receiver tests it:
    every lock call, inotify and a new user namespace fail with EPERM (the seccomp filter)."""
    receiver = staged("flock_bot.py")
    league = write_league(short_tmp, [receiver, "send"], staged)
    text = league.config.read_text().replace(
        json.dumps(["python", str(staged.random)]), json.dumps(["python", str(receiver), "receive"])
    )
    league.config.write_text(text)
    records, _ = run_in_process(league)
    assert sorted(record.fixture for record in records) == [0, 1]
    for record in records:
        faults = [fault for fault in record.faults if fault.bot == OTHER]
        assert [fault.kind for fault in faults] == ["malformed"], record.faults
        report = json.loads(faults[0].detail.split("CHANNEL ", 1)[1])
        assert report == {"flock": "EPERM", "lockf": "EPERM", "lock_high_bits": "EPERM", "inotify": "EPERM", "userns": "EPERM"}, report
        assert not faults_of(record)
    assert "flock_bot send: flock EPERM" in league.log_text()
    assert "seccomp on" in league.log_text()
    assert_no_process_left(staged.dir)


def _stale_groups() -> list[Path]:
    """Bot cgroups of this kind whose referee is gone (their lock is free)."""
    from referee.sandbox._locks import try_lock

    found = cgroups.hierarchy()
    stale = []
    for base in [found.group.parent] if found else []:
        for group in base.glob("kwhist-*"):
            if cgroups.STALE_NAME.fullmatch(group.name) and group not in cgroups._held:
                fd = try_lock(group, cgroups.GROUP_LOCK)
                if fd is not None:
                    os.close(fd)
                    stale.append(group)
    return stale


@pytest.mark.parametrize("namespaces", [False, True])
def test_class5_two_referees_on_one_machine_never_interfere(short_tmp: Path, staged: Staged, namespaces: bool) -> None:
    """Two leagues at once (each restarting a crashing bot before every game), as plain
    processes or each in a PID namespace of its own (where both referees are pid 1): every
    bot process of both runs with every cgroup controller (where the host has cgroup v2), no
    innocent bot faults, and no group is left behind."""
    if namespaces and (os.geteuid() != 0 or shutil.which("unshare") is None):
        pytest.skip("PID namespaces need root and unshare(1)")
    prefix = ["unshare", "--pid", "--fork", "--mount-proc"] if namespaces else []
    leagues, runs = [], []
    for index in range(2):
        tmp = short_tmp / f"r{index}"
        tmp.mkdir()
        league = write_league(tmp, [staged("crash_bot.py")], staged)
        league.config.write_text(
            league.config.read_text().replace("deals = 1", "deals = 3").replace('preset = "league"', 'preset = "league"\nmax_restarts = 10')
        )
        leagues.append(league)
        runs.append(subprocess.Popen(
            [*prefix, sys.executable, "-m", "referee", "run", str(league.config), "--no-live"],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        ))
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    for league in leagues:
        records = league.records()
        assert len(records) == 6
        assert not [fault for record in records for fault in record.faults if fault.bot == OTHER], "the innocent bot never faults"
        assert {fault.kind for record in records for fault in record.faults} == {"crash"}
        shown = set()
        for path in [*league.logs(), *league.logs(OTHER)]:
            first = path.read_text(errors="replace").splitlines()[0]
            shown.add(first.split("cgroup ", 1)[1].split(",  ")[0].split(", RLIMIT")[0])
            assert "warning: cgroup" not in path.read_text(errors="replace")
        if cgroups.hierarchy() is None:
            assert shown == {"none"}, shown  # no cgroup v2 here: the rlimits bound every bot alike
        else:
            assert len(shown) == 1 and "memory" in next(iter(shown)) and "pids" in next(iter(shown)), shown
        assert len(league.logs()) == 6, "restarted before every game"
    assert not _stale_groups()
    assert_no_process_left(staged.dir)


HOLD_GROUPS = """
import sys
from referee.sandbox import cgroups
found = cgroups.hierarchy()
print(found.group if found else "", flush=True)
sys.stdin.read()
"""
CLEAN_GROUPS = "from referee.sandbox import cgroups; cgroups.clean_stale_groups(); cgroups.remove_groups()"


def test_class5_a_referee_in_another_pid_namespace_never_removes_live_groups() -> None:
    """Referee B holds its cgroups from a PID namespace where its pid is not 1; referee A,
    in a PID namespace of its own where no such pid exists, cleans stale groups: B's live
    groups stay (its lock is held). Once B is gone (killed: it removed nothing), they go."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("PID namespaces need root and unshare(1)")
    namespace = ["unshare", "--pid", "--fork", "--mount-proc"]
    holder = subprocess.Popen(
        [*namespace, "--kill-child", "sh", "-c", 'for i in $(seq 40); do /bin/true; done; "$0" -c "$1"', sys.executable, HOLD_GROUPS],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None
        groups = [Path(word) for word in holder.stdout.readline().split()]
        if not groups:
            pytest.skip("no writable cgroup here")
        subprocess.run([*namespace, sys.executable, "-c", CLEAN_GROUPS], cwd=REPO, check=True, timeout=120)
        assert all(group.is_dir() for group in groups), "a live referee's groups are never removed"
    finally:
        holder.kill()  # its namespace's processes die with it (--kill-child)
        holder.wait(30)
    wait_for(lambda: not processes_matching("cgroups.hierarchy()"), 20)
    subprocess.run([*namespace, sys.executable, "-c", CLEAN_GROUPS], cwd=REPO, check=True, timeout=120)
    assert not [group for group in groups if group.exists()], "a gone referee's groups are removed"


def test_class4_rlimits_never_runs_a_bot_as_root(short_tmp: Path, staged: Staged, tmp_path: Path) -> None:
    """A root referee in the rlimits mode, the bot's Python a virtualenv under a 0700
    directory (as Python under root's home): the bot is refused, and that is the host's
    trouble, not the bot's: the league stops with a HostError saying how to fix it (no
    fault, no game stored; ``referee run`` finds it before game 1), and no bot process ever
    ran as uid 0."""
    if os.geteuid() != 0:
        pytest.skip("only a root referee could run a bot as root")
    hidden = tmp_path / "home0700"
    hidden.mkdir()
    hidden.chmod(0o700)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(hidden / "v")], check=True, timeout=120)
    script = staged("crash_bot.py")
    league = write_league(short_tmp, [script], staged, mode="rlimits")
    text = league.config.read_text().replace(
        json.dumps(["python", str(script)]), json.dumps([str(hidden / "v" / "bin" / "python"), str(script)])
    )
    league.config.write_text(text)
    with pytest.raises(BaseExceptionGroup) as raised:
        run_in_process(league)
    host, _rest = raised.value.split(HostError)
    assert host is not None, raised.value
    (error,) = _leaves(host)
    assert "would have to run it as root" in str(error) and 'mode = "bwrap"' in str(error)
    assert league.records() == []
    for bot in (BAD, OTHER):
        for path in league.logs(bot):
            assert ", uid 0," not in path.read_text(errors="replace"), path.read_text(errors="replace")
    assert_no_process_left(staged.dir)


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    """The exceptions of ``group``, nested groups (trio nurseries inside nurseries) opened."""
    return [leaf for inner in group.exceptions for leaf in (_leaves(inner) if isinstance(inner, BaseExceptionGroup) else [inner])]
