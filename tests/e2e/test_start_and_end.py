"""Issue 41: the start and the end of a league are said on screen (no blank screen while
the bots start, no frozen "ETA ~0:00" after the last game), with one play time, a bot's
log named relative to where the teacher is, and one word for concurrency."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO, run_referee, write_config

SAMPLES = REPO / "sample_bots" / "python"
BOTS = REPO / "tests" / "e2e" / "bots"


def test_a_league_says_how_it_starts_and_how_it_ends(short_tmp: Path) -> None:
    lines = [
        "[league]", 'name = "night"', "seed = 1", "table_size = 2", "deals = 1", "concurrency = 2",
        'results = "results/night.sqlite"',  # relative: the teacher runs from this folder
        "[time]", "move_ms = 2000", "startup_ms = 15000",
        "[faults]", "max_restarts = 1",
    ]  # fmt: skip
    for bot, script in {"dora": BOTS / "missing_module_bot.py", "random": SAMPLES / "random_bot.py", "heuristic": SAMPLES / "heuristic_bot.py"}.items():
        lines += ["[[bots]]", f'name = "{bot}"', f'command = ["python", "{script}"]']
    league = write_config(short_tmp / "night.toml", "\n".join(lines) + "\n")
    done = run_referee("run", str(league), "--no-live", cwd=short_tmp)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.splitlines()

    def index(prefix: str) -> int:
        return next(i for i, line in enumerate(out) if line.strip().startswith(prefix))

    assert index("starting 3 bots…") < index("bot dora: does not start:") < index("2 of 3 bots started in ") < index("[1/")
    dora = out[index("bot dora: does not start:")]
    assert "(log: results/night/check/dora-" in dora and str(short_tmp) not in dora, "the log relative to here"
    assert re.search(r"night: 3 bots, 6 games at tables of 2, 2 games at once", done.stdout)

    ending = out[index("all 6 games played in ")]
    assert ending.endswith(": writing the final standings…")
    assert index("[6/") < index("all 6 games played in ") < index("Standings — night"), "said after the last game, before the standings"
    played = re.search(r"all 6 games played in (\d+:\d\d)", ending)
    assert played is not None
    assert f"6 games in {played.group(1)} (schedule done)" in out, "one play time, the same at the end"


def test_concurrency_is_games_at_once_everywhere() -> None:
    done = run_referee("run", "--help")
    assert "games played at once" in done.stdout and "tables played" not in done.stdout
    readme = (REPO / "README.md").read_text()
    assert "`concurrency` (games at once" in readme
    assert "games played at the same time" in (REPO / "tournaments" / "demo.toml").read_text()
