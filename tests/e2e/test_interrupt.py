"""Ctrl-C in the middle of a league night: a game waiting on a bot that never answers
(the debug preset sets no deadline) is abandoned at once, the games already finished
stay stored, no bot process is left, and the teacher sees one line, not a traceback."""

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


def test_ctrl_c_abandons_a_hung_game_and_keeps_finished_ones(short_tmp: Path) -> None:
    marker = short_tmp / "hanging-now"
    results = short_tmp / "night.sqlite"
    config = write_config(
        short_tmp / "night.toml",
        "\n".join([
            "[league]", 'name = "night"', "seed = 3", "table_size = 2", "deals = 3", "concurrency = 1",
            f'results = "{results}"',
            "[time]", "startup_ms = 15000",
            "[faults]", 'preset = "debug"',
            "[sandbox]", 'mode = "none"',
            "[[bots]]", 'name = "hanging"', f'command = ["python", "{BOTS / "hanging_bot.py"}", "{marker}"]',
            "[[bots]]", 'name = "random"', f'command = ["python", "{SAMPLES / "random_bot.py"}"]',
        ]) + "\n",
    )
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    referee = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", str(config), "--no-live"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        give_up = time.monotonic() + 120
        while not marker.exists():  # the second game is waiting on a bot that will not answer
            assert referee.poll() is None, referee.communicate()
            assert time.monotonic() < give_up, "the bot never reached its hanging decision"
            time.sleep(0.05)
        referee.send_signal(signal.SIGINT)
        out, err = referee.communicate(timeout=60)  # no deadline to wait for: the call is cut
    finally:
        if referee.poll() is None:
            referee.kill()
    assert referee.returncode == 130, err
    assert "Traceback" not in err and "Traceback" not in out, err
    assert "interrupted: 1 finished games are stored" in out + err
    records = stored_records(results)
    assert len(records) == 1 and not records[0]["faults"]
    assert processes_matching(str(BOTS / "hanging_bot.py")) == []
    assert processes_matching(str(SAMPLES / "random_bot.py")) == []
