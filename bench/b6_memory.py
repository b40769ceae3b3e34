"""B6 memory: the referee's peak RSS after 100 and after 5,000 games of a league of instant
bots: the real command, ``referee run CONFIG --no-live`` (pool, league, results file,
plain reporter, final standings), in a fresh process per repetition.

To keep 5,000 games short the league is 5 instant bots at tables of 2 with
``start_hand_size = 1`` (one-card deals: a game is a few decisions), 4 games at once.
Peak RSS is the process's ``VmHWM`` (the referee alone, not its bots), read as the
100th, 1,000th, 2,500th and 5,000th game is reported and when the command returns
(after the final standings, which read every stored game back).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import common
from common import Figure

BOTS = 5
TABLE = 2
GAMES_PER_DEAL = 20  # C(5, 2) tables x 2 rotations
GAMES = 5000
MARKS = (100, 1000, 2500, 5000)

# Runs the real CLI; only reads /proc/self/status as each game is reported.
CHILD = """
import json, sys
from referee.report import live

def peak_mib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

marks = {}
wanted = set(json.loads(sys.argv[1]))
reported = live.PlainReporter.game_finished

def game_finished(self, record):
    reported(self, record)
    if self.done in wanted:
        marks[self.done] = peak_mib()

live.PlainReporter.game_finished = game_finished
from referee.cli.main import main
code = main(sys.argv[2:])
marks["exit"] = peak_mib()
print(json.dumps({"code": code, "marks": marks, "games": marks and max(k for k in marks if k != "exit")}))
"""


def config_text(games: int, mode: str) -> str:
    deals = games // GAMES_PER_DEAL
    bots = "\n".join(
        f'[[bots]]\nname = "instant{index}"\ncommand = ["python", "{common.INSTANT_BOT}"]\ndir = "{common.BOTS}"\n'
        for index in range(BOTS)
    )
    return f"""[league]
name = "bench-memory"
seed = 1
table_size = {TABLE}
deals = {deals}
concurrency = 4

[rules]
start_hand_size = 1

[sandbox]
mode = "{mode}"

{bots}"""


def run_league(games: int, marks: tuple[int, ...], mode: str, tmp: Path) -> tuple[dict[str, float], float]:
    """(peak RSS in MiB by mark, seconds) of one ``referee run`` of ``games`` games."""
    config = tmp / f"memory-{games}.toml"
    config.write_text(config_text(games, mode))
    results = tmp / f"memory-{games}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{results}{suffix}").unlink(missing_ok=True)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(list(marks)), "run", str(config), "--no-live", "--results", str(results)],
        cwd=common.ROOT, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - began
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"referee run failed ({done.returncode}):\n{done.stderr[-2000:]}\n{done.stdout[-2000:]}")
    outcome = json.loads(lines[-1])
    if outcome["code"] != 0:
        raise SystemExit(f"referee run exited {outcome['code']}:\n{done.stderr[-2000:]}")
    peaks = outcome["marks"]
    if str(games) not in peaks:
        raise SystemExit(f"expected {games} games; marks seen: {sorted(peaks)}")
    return peaks, elapsed


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    games, marks = (1000, (100, 500, 1000)) if args.quick else (GAMES, MARKS)
    peaks: dict[str, list[float]] = {str(mark): [] for mark in (*marks, "exit")}
    seconds: list[float] = []
    with common.temp_dir("kws-b6-") as tmp:
        for _ in range(args.reps):
            seen, elapsed = run_league(games, marks, args.sandbox, tmp)
            for key in peaks:
                peaks[key].append(seen[key])
            seconds.append(elapsed)
    first, last = str(marks[0]), str(marks[-1])
    figures = [Figure(f"rss_{mark}", f"peak RSS after {mark:,} games", "MiB", peaks[str(mark)]) for mark in marks]
    figures += [
        Figure("rss_exit", "peak RSS of the whole command (after the final standings)", "MiB", peaks["exit"]),
        Figure("ratio", f"peak RSS of the whole command ÷ after {marks[0]} games", "×", common.ratio_values(peaks["exit"], peaks[first])),
        Figure("ratio_played", f"after {marks[-1]:,} games ÷ after {marks[0]} games", "×", common.ratio_values(peaks[last], peaks[first])),
        Figure("seconds", f"time of the {games:,}-game league", "s", seconds),
    ]
    common.write_json(args.json, "B6 memory", figures, sandbox=args.sandbox, games=games)


if __name__ == "__main__":
    main()
