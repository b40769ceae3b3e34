"""B6 memory: the referee's peak RSS after a league of 100 games and after one of 5,000,
each a fresh ``referee run CONFIG --no-live`` (the real command: pool, league, results
file, plain reporter, final standings) in its own process, interleaved.

To keep 5,000 games short the league is 5 instant bots at tables of 2 with
``start_hand_size = 1`` (one-card deals: a game is a few decisions), 4 games at once.
Peak RSS is ``getrusage(RUSAGE_SELF).ru_maxrss`` of the referee process alone (not its
bots), read when the command returns.
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
SIZES = (100, 5000)

CHILD = """
import json, resource, sys
sys.argv = ["referee"] + sys.argv[1:]
from referee.cli.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
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


def run_league(games: int, mode: str, tmp: Path) -> tuple[float, float]:
    """(peak RSS in MiB, seconds) of one ``referee run`` of ``games`` games."""
    config = tmp / f"memory-{games}.toml"
    config.write_text(config_text(games, mode))
    results = tmp / f"memory-{games}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{results}{suffix}").unlink(missing_ok=True)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "run", str(config), "--no-live", "--results", str(results)],
        cwd=common.ROOT, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - began
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"referee run failed ({done.returncode}):\n{done.stderr[-2000:]}\n{done.stdout[-2000:]}")
    outcome = json.loads(lines[-1])
    if outcome["code"] != 0:
        raise SystemExit(f"referee run exited {outcome['code']}:\n{done.stderr[-2000:]}")
    stored = sum(1 for line in done.stdout.splitlines() if line.startswith("["))
    if stored != games:
        raise SystemExit(f"expected {games} games, the run reported {stored}")
    return outcome["maxrss_kib"] / 1024, elapsed


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    sizes = (100, 1000) if args.quick else SIZES
    rss: dict[int, list[float]] = {size: [] for size in sizes}
    seconds: dict[int, list[float]] = {size: [] for size in sizes}
    with common.temp_dir("kws-b6-") as tmp:
        for _ in range(args.reps):
            for size in sizes:
                peak, elapsed = run_league(size, args.sandbox, tmp)
                rss[size].append(peak)
                seconds[size].append(elapsed)
    small, large = sizes
    figures = [
        Figure(f"rss_{small}", f"peak RSS after {small} games", "MiB", rss[small]),
        Figure(f"rss_{large}", f"peak RSS after {large:,} games", "MiB", rss[large]),
        Figure("ratio", f"RSS {large:,} ÷ RSS {small}", "×", common.ratio_values(rss[large], rss[small])),
        Figure(f"seconds_{large}", f"time of the {large:,}-game league", "s", seconds[large]),
    ]
    common.write_json(args.json, "B6 memory", figures, sandbox=args.sandbox, sizes=list(sizes))


if __name__ == "__main__":
    main()
