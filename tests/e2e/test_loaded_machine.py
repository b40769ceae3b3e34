"""A loaded machine is the referee's problem, never a student's (docs/design.md §5); and a
slow bot is judged alike on a quiet and on a loaded machine.

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

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from referee.results.store import ResultsStore
from tests.conftest import REPO, assert_asked_over, busy_loops, on_path, run_referee, write_config
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
        with contextlib.suppress(ProcessLookupError):  # the referee ended between two stops
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


# --- the same seed, quiet and beside a hog -------------------------------------------------

EVERY, SLEEP_S = 20, 1.3  # the sleeper sleeps in ~5 % of its decisions, 300 ms past the limit
SAME_SEED_TIME = ("move_ms = 500", "grace_ms = 500")  # generous: an instant answer is never late, even beside the hog


def same_seed_league(tmp: Path) -> tuple[list[dict[str, object]], str]:
    """The league of 3 sample bots and the sometimes-sleeper (same seed every time);
    -> (its records, the sleeper's logs)."""
    tmp.mkdir()
    lines = [
        "[league]", 'name = "seeded"', "seed = 17", "table_size = 4", "deals = 2", "concurrency = 2",
        f'results = "{tmp / "seeded.sqlite"}"',
        "[time]", *SAME_SEED_TIME, "startup_ms = 60000",
        "[faults]", "max_faults = 10",  # no forfeit
    ]  # fmt: skip
    bots = {
        "random": ["python", str(SAMPLES / "random_bot.py")],
        "heuristic": ["python", str(SAMPLES / "heuristic_bot.py")],
        "random-2": ["python", str(SAMPLES / "random_bot.py")],
        "sleeper": ["python", str(BOTS / "sometimes_sleeper_bot.py"), str(EVERY), str(SLEEP_S)],
    }
    for name, command in bots.items():
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    config = write_config(tmp / "seeded.toml", "\n".join(lines) + "\n")
    done = run_referee("run", str(config), "--no-live", timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    records = stored_records(tmp / "seeded.sqlite")
    assert len(records) == 8
    logs = "".join(path.read_text(errors="replace") for path in (tmp / "seeded").glob("sleeper-*.log"))
    return records, logs


def assert_judged_alike(records: list[dict[str, object]], logs: str) -> None:
    """Every real sleep charged; no late answer of the sleeper excused, nothing it is told
    suggests the machine; the correct bots without a fault."""
    slept = {(game, int(decision)) for game, decision in re.findall(r"^SLEEP (\S+) (\d+)$", logs, re.MULTILINE)}
    assert slept, "the sleeper slept"
    faults = [(r["game_id"], f) for r in records for f in r["faults"]]  # type: ignore[union-attr]
    mine = {(game, f["decision"]): f for game, f in faults if f["bot"] == "sleeper"}
    assert slept == set(mine), "every real sleep, and nothing else, is charged"
    assert all(f["kind"] == "timeout" and "machine" not in f["detail"] and "asked" not in f["detail"] for f in mine.values())
    assert [o for r in records for o in r.get("overloads", []) if o["bot"] == "sleeper"] == [], "no excuse, no ask again"  # type: ignore[union-attr]
    assert [f for _, f in faults if f["bot"] != "sleeper"] == [], "the correct bots have no fault"


def test_the_same_seed_is_judged_alike_quiet_and_beside_a_hog_of_8_busy_loops_per_core(short_tmp: Path) -> None:
    quiet, quiet_logs = same_seed_league(short_tmp / "quiet")
    assert_judged_alike(quiet, quiet_logs)
    with busy_loops(8 * (os.cpu_count() or 1)):
        loaded, loaded_logs = same_seed_league(short_tmp / "loaded")
    assert_judged_alike(loaded, loaded_logs)
    for calm, hogged in zip(quiet, loaded):
        assert calm["game_id"] == hogged["game_id"]
        assert [a["action"] for a in calm["actions"]] == [a["action"] for a in hogged["actions"]], f"game {calm['game_id']} differs"  # type: ignore[index, union-attr]
        assert calm["placements"] == hogged["placements"]
