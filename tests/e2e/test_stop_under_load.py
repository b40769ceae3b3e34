"""Ctrl-C on a loaded machine ends `referee run` at once (docs/design.md §7; the time is
measured in the benchmark, bench/NOTES.md B12): it stops asking, stores nothing
half-played, prints the standings of the stored games while the bots have their grace to
stop cleanly (SIGTERM), and kills whatever is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO, processes_matching, stored_games, write_config
from tests.e2e.test_league_e2e import stored_records

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"


def test_ctrl_c_under_load_stores_no_half_game_prints_the_standings_and_leaves_no_bot(short_tmp: Path, cpu_hog: int) -> None:
    results = short_tmp / "night.sqlite"
    lines = [
        "[league]", 'name = "night"', "seed = 3", "table_size = 4", "deals = 4", "concurrency = 4", f'results = "{results}"',
        "[time]", "startup_ms = 30000",
        "[sandbox]", 'mode = "none"',  # the bots write their "asked to stop" files here
    ]  # fmt: skip
    for name, script in {"stop-1": BOTS / "asked_to_stop_bot.py", "stop-2": BOTS / "asked_to_stop_bot.py",
                         "random": SAMPLES / "random_bot.py", "heuristic": SAMPLES / "heuristic_bot.py"}.items():  # fmt: skip
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{script}", "{short_tmp}"]']
    config = write_config(short_tmp / "night.toml", "\n".join(lines) + "\n")
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(config), "--no-live"], cwd=REPO, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        give_up = time.monotonic() + 300
        while stored_games(results) < 2 and referee.poll() is None and time.monotonic() < give_up:
            time.sleep(0.05)
        referee.send_signal(signal.SIGINT)
        out, _ = referee.communicate(timeout=120)
    finally:
        if referee.poll() is None:
            referee.kill()
    assert referee.returncode == 130, out
    assert "Traceback" not in out, out
    assert "Standings — night" in out and "interrupted:" in out, out
    records = stored_records(results)
    assert 2 <= len(records) < 16, "interrupted mid-league"
    for record in records:  # every stored game was played to its end
        assert sorted(record["placements"])[0] == 1 and len(record["actions"]) > 0  # type: ignore[index, arg-type]
    assert processes_matching(str(short_tmp)) == [], "no bot process is left"
    assert list(short_tmp.glob("asked-to-stop-*")), "the bots were asked to stop (SIGTERM) before they were killed"
