"""The evidence gathered around an ask (docs/design.md §5, "A loaded machine"): every task
of the bot counts, the processes it forks during the ask and the children it has already
reaped included; its tasks waiting behind each other are never the machine's; a cgroup's
``cpu.stat`` and ``cpu.pressure`` are read where the bot has one; the referee's stalls count
only at the ends of an ask. Real processes on the process-tree path (this machine has no
usable cgroup v2); the cgroup files are written by the test."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.game.timecontrol import Evidence
from referee.league.evidence import DecisionProbe
from referee.league.lateness import Heartbeat
from referee.sandbox.cputime import BotClock

HOLD_S = 0.6
WORK_S = 0.2  # of CPU, each spinning child: however loaded the machine, the children use this much
# On "spin N" it forks N processes that spin until each has used WORK_S of CPU, waits for them
# (reaps them) and says "done"; on "fork N" it forks them and says "done" at once, while they spin; on "sleep" it sleeps HOLD_S and says "done". Like a bot holding an ask.
WORKER = f"""
import os, sys, time
for line in sys.stdin:
    words = line.split()
    if words[0] in ("spin", "fork"):
        children = []
        for _ in range(int(words[1])):
            pid = os.fork()
            if pid == 0:
                while time.process_time() < {WORK_S}:
                    pass
                os._exit(0)
            children.append(pid)
        if words[0] == "spin":
            for pid in children:
                os.waitpid(pid, 0)
        else:
            time.sleep(0.05)  # answers while they still spin
    elif words[0] == "sleep":
        time.sleep({HOLD_S})
    print("done", flush=True)
"""


@pytest.fixture
def worker() -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("ping\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "done"  # started, and waiting on its stdin
        yield process
    finally:
        process.kill()
        process.wait()


def hold(process: subprocess.Popen[str], probe: DecisionProbe, command: str) -> tuple[Evidence, float]:
    """One ask the worker holds with ``command``; -> (its evidence, its wall time in ms)."""
    assert process.stdin is not None and process.stdout is not None
    mark = probe.mark()
    process.stdin.write(command + "\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "done"
    wall = (time.monotonic() - mark.started) * 1000
    return probe.evidence(mark, answered=True), wall


def test_processes_forked_during_an_ask_and_reaped_within_it_count(worker: subprocess.Popen[str]) -> None:
    probe = DecisionProbe(worker.pid, beat=Heartbeat())  # its clocks opened now: the children come later
    evidence, wall = hold(worker, probe, "spin 2")
    assert evidence.bot_cpu_ms is not None
    assert evidence.bot_cpu_ms >= 2 * WORK_S * 1000 - 30, f"the children's work is counted (30 ms: clock ticks): {evidence}"
    assert evidence.received
    probe.close()


@pytest.mark.parametrize("how", ["spin", "fork"], ids=["reaped before the answer", "spinning at the answer"])
def test_a_bots_own_processes_waiting_behind_each_other_are_not_the_machines(worker: subprocess.Popen[str], how: str) -> None:
    spinners = 3 * (os.cpu_count() or 1)  # more than the cores: they keep each other waiting
    probe = DecisionProbe(worker.pid, beat=Heartbeat())
    evidence, wall = hold(worker, probe, f"{how} {spinners}")
    assert evidence.bot_cpu_ms is not None and evidence.bot_cpu_ms > 0
    # Their waiting behind each other is no excuse: the bot is starved only while none of
    # its tasks runs, so never longer than the ask less the CPU they used (on a machine
    # they have to themselves, not at all; other programs may starve them for real).
    assert evidence.starved_ms <= max(0.0, wall - evidence.bot_cpu_ms) + 30, f"{evidence} in {wall:.0f} ms"
    assert evidence.starved_ms < wall
    probe.close()


def test_a_sleeping_bot_is_not_starved(worker: subprocess.Popen[str]) -> None:
    probe = DecisionProbe(worker.pid, beat=Heartbeat())
    evidence, wall = hold(worker, probe, "sleep")
    assert evidence.starved_ms < 0.5 * wall, evidence  # asleep, it wanted no core: only its wake-up can wait
    probe.close()


def test_a_bot_that_ran_not_at_all_never_received_the_ask(worker: subprocess.Popen[str]) -> None:
    probe = DecisionProbe(worker.pid, beat=Heartbeat())
    mark = probe.mark()
    time.sleep(0.1)  # nothing sent: the worker waits on its stdin
    assert not probe.evidence(mark, answered=False).received
    probe.close()


def write_cgroup(folder: Path, usage_usec: int, full_usec: int | None) -> None:
    (folder / "cpu.stat").write_text(f"usage_usec {usage_usec}\nuser_usec {usage_usec // 2}\nsystem_usec {usage_usec // 2}\n")
    some = f"some avg10=0.00 avg60=0.00 avg300=0.00 total={2 * (full_usec or 0)}\n"
    full = f"full avg10=0.00 avg60=0.00 avg300=0.00 total={full_usec}\n" if full_usec is not None else ""
    (folder / "cpu.pressure").write_text(some + full)


def test_a_cgroup_counts_every_task_and_its_full_pressure_is_the_starvation(tmp_path: Path) -> None:
    write_cgroup(tmp_path, 1_000_000, 50_000)
    clock = BotClock(os.getpid(), cgroup=tmp_path)
    before = clock.sample()
    write_cgroup(tmp_path, 1_400_000, 350_000)  # 400 ms of CPU by all its tasks; 300 ms with none of them on a core
    used = clock.used(before)
    assert (used.cpu_ms, used.starved_ms) == (400.0, 300.0)
    clock.close()


def test_a_cgroup_without_full_pressure_falls_back_to_its_tasks(tmp_path: Path) -> None:
    write_cgroup(tmp_path, 1_000_000, None)
    clock = BotClock(os.getpid(), cgroup=tmp_path)
    before = clock.sample()
    write_cgroup(tmp_path, 3_000_000, None)  # 2 s of CPU the tasks cannot show (children gone): no starvation can be claimed
    used = clock.used(before)
    assert used.cpu_ms >= 2000.0 and used.starved_ms == 0.0
    clock.close()


def test_the_referees_stalls_count_only_at_the_ends_of_an_ask() -> None:
    beat = Heartbeat()  # not started: only the stalls noted here
    began = time.monotonic()
    beat.note(began + 0.3, began + 0.5)  # while the bot worked: delays nothing
    assert beat.edges_ms(began, began + 1.0) == (0.0, 0.0)
    beat.note(began + 0.9, began + 1.2)  # going on when the ask ended: an answer not read
    first, last = beat.edges_ms(began, began + 1.0)
    assert first == 0.0 and last == pytest.approx(100.0)
    beat2 = Heartbeat()
    beat2.note(began - 0.1, began + 0.2)  # going on when the ask began: the request left late
    first, last = beat2.edges_ms(began, began + 1.0)
    assert first == pytest.approx(200.0) and last == 0.0
    assert beat.late_ms(began, began + 1.0) == pytest.approx(300.0), "every stall in the span, for the pace's measures"


def test_the_heartbeat_waits_for_its_next_beat_before_answering() -> None:
    beat = Heartbeat(tick_s=0.02).start()
    time.sleep(0.05)
    ended = time.monotonic()
    beat.edges_ms(ended - 0.01, ended)  # returns once the heartbeat woke after `ended`
    assert beat._last_woke >= ended
