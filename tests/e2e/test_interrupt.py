"""Ctrl-C in the middle of a league night: a game waiting on a bot that never answers
(the debug preset sets no deadline) is abandoned at once, the games already finished
stay stored, no bot process is left, and the teacher sees the standings of the stored
games and one line, not a traceback. SIGTERM does the same, even in a background job
of a script (where SIGINT is ignored)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO, processes_matching, write_config
from tests.e2e.test_league_e2e import stored_records

BOTS = Path(__file__).parent / "bots"
SAMPLES = REPO / "sample_bots" / "python"


def interrupt_a_hung_league(tmp: Path, sig: int, *, ignore_sigint: bool = False) -> tuple[int, str, Path]:
    """Start a league whose second game hangs on a bot (no deadline), send ``sig`` once
    the bot hangs; -> (exit code, stdout + stderr, the results file)."""
    marker = tmp / "hanging-now"
    results = tmp / "night.sqlite"
    config = write_config(
        tmp / "night.toml",
        "\n".join([
            "[league]", 'name = "night"', "seed = 3", "table_size = 2", "deals = 3", "concurrency = 1",
            f'results = "{results}"',
            "[time]", "startup_ms = 15000",
            "[faults]", 'preset = "debug"',
            "[sandbox]", 'mode = "none"',
            "[[bots]]", 'name = "hanging"', f'command = ["python", "{BOTS / "hanging_bot.py"}", "{marker}"]',
            # the folder in its command tells this test's random bot from other tests' ones
            "[[bots]]", 'name = "random"', f'command = ["python", "{SAMPLES / "random_bot.py"}", "{tmp}"]',
        ]) + "\n",
    )
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")

    def sigint_as_in() -> None:
        # ignored: as a shell does for `referee run ... &` in a script; else the default of
        # a terminal, even when the tests themselves run in the background (SIGINT ignored)
        signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_sigint else signal.SIG_DFL)

    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(config), "--no-live"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_as_in,
    )
    try:
        give_up = time.monotonic() + 120
        while not marker.exists():  # the second game is waiting on a bot that will not answer
            assert referee.poll() is None, referee.communicate()
            assert time.monotonic() < give_up, "the bot never reached its hanging decision"
            time.sleep(0.05)
        referee.send_signal(sig)
        out, err = referee.communicate(timeout=60)  # no deadline to wait for: the call is cut
    finally:
        if referee.poll() is None:
            referee.kill()
    return referee.returncode, out + err, results


def assert_interrupted_cleanly(code: int, output: str, results: Path) -> None:
    assert code == 130, output
    assert "Traceback" not in output, output
    assert "interrupted: 1 finished games are stored" in output
    assert output.count("interrupted") == 1, "said once"
    assert "Standings — night" in output and "hanging" in output, "the standings of the stored games"
    records = stored_records(results)
    assert len(records) == 1 and not records[0]["faults"]
    assert processes_matching(str(results.parent)) == [], "no bot process is left"


def test_ctrl_c_abandons_a_hung_game_and_keeps_finished_ones(short_tmp: Path) -> None:
    assert_interrupted_cleanly(*interrupt_a_hung_league(short_tmp, signal.SIGINT))


def test_sigterm_ends_a_background_referee_where_sigint_is_ignored(short_tmp: Path) -> None:
    assert_interrupted_cleanly(*interrupt_a_hung_league(short_tmp, signal.SIGTERM, ignore_sigint=True))
