"""A loaded machine is the referee's problem, never a student's (docs/design.md §5).

The mechanism, measured (bench/NOTES.md, B12): beside a CPU hog the bots answer in 1-2 ms
of their own CPU, but the referee's game thread, woken by the reply, waits hundreds of ms
for a core (its run-queue wait was the whole late time), so the reply is read after the
deadline. Here the referee itself is starved outright, as the machine does to it: a
helper stops the referee process (SIGSTOP) for 0.5 s, again and again after 0.1-0.7 s
(seeded, so that the stops do not fall into step with the slow bot's asks).
Bots that answer at once must get no fault; a bot that really sleeps past its deadline
must get exactly the timeouts it gets on a quiet machine. On both paths: the bots asked by
unary ``Decide``, then on their ``Play`` streams.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

from referee.results.store import ResultsStore
from tests.conftest import REPO, assert_asked_over, on_path, run_referee, write_config
from tests.e2e.test_league_e2e import stored_records

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"
STALL_S = 0.5  # the referee is stopped this long ...
BETWEEN_S = (0.1, 0.7)  # ... then runs this long, over and over


def config(tmp: Path, path: str) -> Path:
    lines = [
        "[league]", 'name = "loaded"', "seed = 11", "table_size = 4", "deals = 2", "concurrency = 2",
        f'results = "{tmp / "loaded.sqlite"}"',
        "[time]", "move_ms = 200", "grace_ms = 100", "startup_ms = 30000",
        "[faults]", "max_faults = 10",  # no forfeit: both runs play the same decisions
    ]  # fmt: skip
    bots = {
        "random": SAMPLES / "random_bot.py",
        "heuristic": SAMPLES / "heuristic_bot.py",
        "random-2": SAMPLES / "random_bot.py",
        "sleeper": BOTS / "three_card_sleeper_bot.py",
    }
    for name, script in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(on_path(['python', str(script)], path))}"]
    return write_config(tmp / "loaded.toml", "\n".join(lines) + "\n")


def run_league(tmp: Path, *, stalls: bool, path: str) -> tuple[list[tuple[str, str, int | None, str]], str]:
    """Play the league (with the referee stopped over and over when ``stalls``), its bots
    asked over ``path``; -> (every fault as (game, bot, decision, kind), what the referee printed)."""
    tmp.mkdir()
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(config(tmp, path)), "--no-live"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    done = threading.Event()

    gaps = random.Random(26)

    def stall() -> None:
        while not done.wait(gaps.uniform(*BETWEEN_S)):
            try:
                os.kill(referee.pid, signal.SIGSTOP)
                done.wait(STALL_S)
            finally:
                os.kill(referee.pid, signal.SIGCONT)

    staller = threading.Thread(target=stall, daemon=True)
    if stalls:
        staller.start()
    try:
        out, _ = referee.communicate(timeout=600)
    finally:
        done.set()
        if stalls:
            staller.join()
        if referee.poll() is None:
            referee.kill()
    assert referee.returncode == 0, out
    assert_asked_over(tmp / "loaded", path)
    records = stored_records(tmp / "loaded.sqlite")
    assert len(records) == 8, out
    faults = sorted((r["game_id"], f["bot"], f["decision"], f["kind"]) for r in records for f in r["faults"])  # type: ignore[index, union-attr]
    return faults, out


def test_a_starved_referee_charges_no_innocent_bot_and_the_slow_one_exactly_as_on_a_quiet_machine(short_tmp: Path, path: str) -> None:
    stalled, said = run_league(short_tmp / "stalled", stalls=True, path=path)
    innocent = [fault for fault in stalled if fault[1] != "sleeper"]
    assert innocent == [], f"bots that answer at once were charged: {innocent}"
    with ResultsStore.open_existing(short_tmp / "stalled" / "loaded.sqlite") as store:
        excused = sum(count for count, _ in store.overloads().values())
    faults = run_referee("faults", str(short_tmp / "stalled" / "loaded.sqlite"))
    logs = "".join(path.read_text(errors="replace") for path in (short_tmp / "stalled" / "loaded").glob("*.log"))
    # the late answers that were the machine's are said to be, wherever a teacher or a student looks
    assert ("referee overloaded:" in said) == ("referee overloaded:" in faults.stdout) == (excused > 0), said + faults.stdout
    assert logs.count("referee overloaded: decision") == excused, "each bot's log says which decisions"
    quiet, said = run_league(short_tmp / "quiet", stalls=False, path=path)
    assert quiet and all(kind == "timeout" for _, bot, _, kind in quiet if bot == "sleeper")
    assert stalled == quiet, "the slow bot gets the timeouts it gets on a quiet machine, no more, no fewer"
