"""B12 load: a league beside a CPU hog (4 busy loops per core, started here) against the
same league on a quiet machine; and Ctrl-C under that load.

The league is the real command, ``referee run CONFIG --no-live``, in the movement format:
8 bots at tables of 4, ``move_ms = 300``:

- **innocent**: the sample bots (2 random, 2 heuristic), answering in a few ms;
- **thinkers**: ``bench/bots/half_time_bot.py --spin``, busy for half of ``time_left_ms``;
- **sleepers**: ``bench/bots/sleeper_bot.py``, which sleeps 3 × ``time_left_ms`` on every
  5th decision of a game: bots that really are slow, whose timeouts must not change.

Figures: faults of the innocent bots and the thinkers (0 is the target, loaded or not), the
sleepers' timeouts loaded minus quiet (0), the decisions the machine held up and how often
one was asked again, games/s loaded and quiet, and the seconds from SIGINT to the end of
``referee run`` under the same load (after 4 games are stored). The quiet and the loaded
league play the same seed, so they are compared game for game (docs/design.md §5): the
games whose every action is the same in both (the target: all of them), and the sleepers'
decisions the machine was said to hold up, or whose message names the machine (0).
For the two designs of docs/design.md §5: the asks per decision held up (asking again),
and the share of those decisions whose wall time passed 3 × the limit (what a
wall-clock backstop of a few times the limit, the other design, would have charged).

``--referee PATH`` runs another checkout of the referee (its ``.venv``): the same figures
before a change. ``--sandbox`` sets the league's mode (default ``auto``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import common
from common import Figure

MOVE_MS, GRACE_MS = 300, 100
GAMES = 48  # 6 rounds of 8 games
BOTS = {
    "random-1": ("sample", "random_bot.py"), "random-2": ("sample", "random_bot.py"),
    "heuristic-1": ("sample", "heuristic_bot.py"), "heuristic-2": ("sample", "heuristic_bot.py"),
    "thinker-1": ("bench", "half_time_bot.py"), "thinker-2": ("bench", "half_time_bot.py"),
    "sleeper-1": ("bench", "sleeper_bot.py"), "sleeper-2": ("bench", "sleeper_bot.py"),
}  # fmt: skip


def config(tmp: Path, games: int, sandbox: str, seed: int) -> Path:
    lines = [
        "[league]", 'name = "load"', f"seed = {seed}", "table_size = 4", 'format = "movement"', f"games = {games}",
        "concurrency = 4", f'results = "{tmp / "load.sqlite"}"',
        "[time]", f"move_ms = {MOVE_MS}", f"grace_ms = {GRACE_MS}", "startup_ms = 60000",
        "[faults]", "max_faults = 10",  # no forfeit: quiet and loaded runs ask the same decisions
        "[sandbox]", f'mode = "{sandbox}"',
    ]  # fmt: skip
    for name, (where, script) in BOTS.items():
        folder = common.ROOT / "sample_bots" / "python" if where == "sample" else common.BOTS
        extra = ', "--spin"' if script == "half_time_bot.py" else ""
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "{folder / script}"{extra}]']
    path = tmp / "load.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class Hog:
    """4 busy loops per core for the life of the ``with`` block."""

    def __enter__(self) -> Hog:
        self.loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4 * (os.cpu_count() or 1))]
        time.sleep(1.0)
        return self

    def __exit__(self, *exc: object) -> None:
        for loop in self.loops:
            loop.kill()
        for loop in self.loops:
            loop.wait()


def referee_command(repo: Path) -> tuple[list[str], Path]:
    python = repo / ".venv" / "bin" / "python"
    return [str(python if python.exists() else sys.executable), "-m", "referee"], repo


def stored(results: Path) -> int:
    try:
        with sqlite3.connect(results) as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def league(repo: Path, games: int, sandbox: str, seed: int, loaded: bool) -> tuple[dict[str, float], dict[str, list[str]]]:
    """One league; -> (its figures, each game's actions by game id)."""
    command, cwd = referee_command(repo)
    with common.temp_dir("kws-b10-") as tmp:
        night = config(tmp, games, sandbox, seed)
        loads: list[float] = []
        began = time.perf_counter()
        with Hog() if loaded else _Nothing():
            run = subprocess.Popen([*command, "run", str(night), "--no-live"], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            while run.poll() is None:
                loads.append(os.getloadavg()[0])
                time.sleep(1.0)
            out = run.communicate()[0]
        seconds = time.perf_counter() - began
        if run.returncode != 0:
            raise SystemExit(f"referee run failed ({run.returncode}):\n{out[-3000:]}")
        with sqlite3.connect(tmp / "load.sqlite") as db:
            records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games")]
    faults = Counter((fault["bot"].split("-")[0], fault["kind"]) for record in records for fault in record["faults"])
    overloads = [o for record in records for o in record.get("overloads", [])]
    limit = MOVE_MS + GRACE_MS
    sleepers = [o for o in overloads if o["bot"].startswith("sleeper")]
    machine_said = [f for record in records for f in record["faults"] if f["bot"].startswith("sleeper") and "machine" in f["detail"]]
    games_played = {record["game_id"]: [action["action"] for action in record["actions"]] for record in records}
    return {
        "innocent": sum(n for (kind, _), n in faults.items() if kind in ("random", "heuristic")),
        "thinkers": sum(n for (kind, _), n in faults.items() if kind == "thinker"),
        "sleepers": faults[("sleeper", "timeout")],
        "sleeper_other": sum(n for (kind, what), n in faults.items() if kind == "sleeper" and what != "timeout"),
        "excused": len(overloads),
        "asked_again": sum(1 for o in overloads if o["asks"] > 1),
        "asks_per_excused": (sum(o["asks"] for o in overloads) / len(overloads)) if overloads else 0.0,
        "over_backstop": (sum(1 for o in overloads if sum(o["ms"]) > 3 * limit) / len(overloads) * 100) if overloads else 0.0,
        "games_per_s": len(records) / seconds,
        "load": max(loads) if loads else os.getloadavg()[0],
        "sleeper_held_up": len(sleepers) + len(machine_said),
    }, games_played


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def stop_time(repo: Path, sandbox: str, seed: int) -> float:
    """Seconds from SIGINT to the end of ``referee run`` beside the hog, 4 games in."""
    command, cwd = referee_command(repo)
    with common.temp_dir("kws-b10-") as tmp, Hog():
        night = config(tmp, GAMES, sandbox, seed)
        run = subprocess.Popen([*command, "run", str(night), "--no-live"], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
        give_up = time.monotonic() + 600
        while stored(tmp / "load.sqlite") < 4 and run.poll() is None and time.monotonic() < give_up:
            time.sleep(0.05)
        asked = time.perf_counter()
        run.send_signal(signal.SIGINT)
        run.wait()
        seconds = time.perf_counter() - asked
        out = run.stdout.read() if run.stdout else ""
    if run.returncode != 130 or "Standings" not in out:
        raise SystemExit(f"Ctrl-C did not end the league as expected ({run.returncode}):\n{out[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="repetitions (default 1)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here as JSON")
    parser.add_argument("--quick", action="store_true", help="16 games instead of 48 (a smoke run)")
    parser.add_argument("--sandbox", default="auto", choices=("none", "rlimits", "bwrap", "auto"))
    parser.add_argument("--referee", type=Path, default=common.ROOT, help="the checkout of the referee to run (default: this one)")
    args = parser.parse_args()
    games = 16 if args.quick else GAMES
    keys = (
        "innocent", "thinkers", "sleepers", "sleeper_other", "excused", "asked_again", "asks_per_excused", "over_backstop", "games_per_s",
        "load", "sleeper_held_up",
    )  # fmt: skip
    quiet: dict[str, list[float]] = {key: [] for key in keys}
    loaded: dict[str, list[float]] = {key: [] for key in keys}
    stops: list[float] = []
    same: list[float] = []
    for rep in range(args.reps):
        played = []
        for figures, hogged in ((quiet, False), (loaded, True)):
            values, games_played = league(args.referee, games, args.sandbox, 100 + rep, hogged)
            played.append(games_played)
            for key, value in values.items():
                figures[key].append(value)
        same.append(sum(1 for game, actions in played[0].items() if played[1].get(game) == actions))
        stops.append(stop_time(args.referee, args.sandbox, 100 + rep))
    figures = [
        Figure("innocent_faults_load", "sample bots' faults beside the hog", "", loaded["innocent"], note="target 0"),
        Figure("innocent_faults_quiet", "sample bots' faults, quiet", "", quiet["innocent"]),
        Figure("thinker_faults_load", "thinkers' faults beside the hog (busy half of move_ms)", "", loaded["thinkers"]),
        Figure("thinker_faults_quiet", "thinkers' faults, quiet", "", quiet["thinkers"]),
        Figure("sleeper_timeouts_load", "sleepers' timeouts beside the hog", "", loaded["sleepers"]),
        Figure("sleeper_timeouts_quiet", "sleepers' timeouts, quiet", "", quiet["sleepers"]),
        Figure("sleeper_change", "sleepers' timeouts, loaded − quiet", "", [a - b for a, b in zip(loaded["sleepers"], quiet["sleepers"])], note="target 0"),
        Figure("excused_load", "decisions the machine held up (excused, asked again, or charged at the last ask), beside the hog", "", loaded["excused"]),
        Figure("asked_again_load", "... of which asked again", "", loaded["asked_again"]),
        Figure("asks_per_excused", "asks per decision held up", "", loaded["asks_per_excused"]),
        Figure("over_backstop", "decisions held up longer than 3 × the limit (a backstop would charge them)", "%", loaded["over_backstop"]),
        Figure("games_per_s_load", "games/s beside the hog", "games/s", loaded["games_per_s"]),
        Figure("games_per_s_quiet", "games/s, quiet", "games/s", quiet["games_per_s"]),
        Figure("throughput_ratio", "games/s beside the hog ÷ quiet", "×", common.ratio_values(loaded["games_per_s"], quiet["games_per_s"])),
        Figure("same_games", f"games identical quiet and beside the hog, action for action (of {games})", "", same, note=f"target {games}"),
        Figure("sleeper_held_up_load", "sleepers' decisions said to be held up by the machine, beside the hog", "", loaded["sleeper_held_up"], note="target 0"),
        Figure("stop_s", "Ctrl-C to exit beside the hog", "s", stops, note="target ≤ 2 s"),
        Figure("load", "load average (1 min, highest) beside the hog", "", loaded["load"]),
        Figure("load_quiet", "load average (1 min, highest) without it", "", quiet["load"]),
    ]
    common.write_json(
        args.json, "B12 load", figures, move_ms=MOVE_MS, grace_ms=GRACE_MS, games=games, hog=f"{4 * (os.cpu_count() or 1)} busy loops",
        sandbox=args.sandbox, referee=str(args.referee), machine=common.machine(),
    )  # fmt: skip


if __name__ == "__main__":
    main()
