"""B15 soak: a long night where everything happens at once. 30 bots on the Python bot kit
(``bench/bots/soak_bot.py``), a movement league of ``--games`` games at tables of 4,
concurrency 4, under bubblewrap: 20 play the sample heuristic at five strengths (the
heuristic's share of decisions 1.0, 0.75, 0.5, 0.25, 0), 10 of them misbehave besides
(crash mid-game, hang, answer garbage, grow memory to the limit, fork to the process limit,
flood output, stall at start, exit between games), at random but seeded: a function of the
game and the decision, never of the clock, so every run of the same league sees the same
faults.

The league is played twice, each by ``referee run CONFIG --no-live`` as a teacher runs it:

- **straight**: uninterrupted;
- **night**: killed with ``kill -9`` (at ``KILLS`` shares of the games stored), stopped
  with SIGTERM (at ``TERMS``), and resumed with ``--resume`` after each.

Figures: games lost (fixtures of the straight run missing from the night's results) and
played twice (a game stored again by a later run, seen by its ``finished_at``); the night's
records against the straight run's, game for game (apart from measured times and the
machine's own late decisions), and its standings (fault counts included); the referee's
RSS and open descriptors at game 1,000 and at the end of the straight run (sampled every
0.5 s); bot processes left 5 s after each kill and after the end; the results file's size
per game; the wall times. ``--keep DIR`` keeps both runs' folders (results, logs).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common
from common import Figure

BOTS = 30
FAULTY = 10  # the last FAULTY bots misbehave
TIERS = (1.0, 0.75, 0.5, 0.25, 0.0)  # strengths of the well-behaved bots, 4 each
MISBEHAVE = 0.005  # a faulty bot's share of decisions it misbehaves in (~10% of its games)
EXITS = 0.05  # a faulty bot's share of games after which it exits
GAMES, GAMES_QUICK = 10_000, 600
KILLS = (0.2, 0.45)  # kill -9 when these shares of the games are stored
TERMS = (0.7,)  # SIGTERM
CONCURRENCY = 4
MOVE_MS = 1000
SAMPLE_S = 0.5
LEFT_AFTER_S = 5.0  # bot processes still there this long after the referee ended
RSS_AT = 1000  # the straight run's RSS here, against its end


def stage(folder: Path) -> Path:
    """The bots' folder of one run: the soak bot and the heuristic it builds on, readable by
    the sandbox's uids; its path marks every process of this run's bots."""
    bots = folder / "bots"
    bots.mkdir(parents=True)
    for source in (common.BOTS / "soak_bot.py", common.CODE / "sample_bots" / "python" / "heuristic_bot.py"):
        shutil.copyfile(source, bots / source.name)
        (bots / source.name).chmod(0o644)
    for path in (folder, bots):
        path.chmod(0o755)
    return bots


def bot_lines(bots: Path, seed: int, misbehave: float = MISBEHAVE) -> list[str]:
    lines = []
    for index in range(BOTS):
        faulty = index >= BOTS - FAULTY
        strength = TIERS[index % len(TIERS)]
        name = f"{'faulty' if faulty else 'kit'}-{index:02d}"
        command = ["python", str(bots / "soak_bot.py"), "--tree", str(common.CODE), "--seed", str(seed * 100 + index), "--strength", str(strength)]
        if faulty:
            command += ["--misbehave", str(misbehave), "--exits", str(EXITS)]
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    return lines


def write_config(folder: Path, games: int, seed: int, mode: str, misbehave: float = MISBEHAVE) -> Path:
    """The league's config in ``folder`` (its results in ``folder/soak.sqlite``)."""
    bots = stage(folder)
    lines = [
        "[league]", 'name = "soak"', f"seed = {seed}", "table_size = 4", 'format = "movement"', f"games = {games}",
        f"concurrency = {CONCURRENCY}", f'results = "{folder / "soak.sqlite"}"',
        "[time]", f"move_ms = {MOVE_MS}", "startup_ms = 30000",
        "[faults]", 'preset = "league"', "max_restarts = 1000000",  # no withdrawal: its timing would be the machine's
        "[sandbox]", f'mode = "{mode}"',
        *bot_lines(bots, seed, misbehave),
    ]  # fmt: skip
    config = folder / "soak.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def stored(results: Path) -> int:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{results}?mode=ro", uri=True, timeout=5)) as db:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def finished_at(results: Path) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(f"file:{results}?mode=ro", uri=True, timeout=30)) as db:
        return dict(db.execute("SELECT game_id, finished_at FROM games"))


def processes_of(marker: str) -> list[int]:
    """Live processes (not zombies) whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                status = (entry / "status").read_text()
                if "\nState:\tZ" not in status:
                    found.append(int(entry.name))
    return found


def left_after(marker: str, seconds: float = LEFT_AFTER_S) -> int:
    """The bot processes of ``marker`` still there ``seconds`` s from now (0 as soon as none is)."""
    deadline = time.monotonic() + seconds
    while (left := processes_of(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return len(left)


@dataclass
class Sample:
    at_s: float  # since the run's start
    games: int
    rss_kb: int
    fds: int


@dataclass
class Segment:
    """One ``referee run`` process: how it ended, its samples, the bots left after it."""

    code: int
    wall_s: float
    signal: str  # "" (ran to the end), "KILL" or "TERM"
    at_games: int  # games stored when it was signalled (or at its end)
    left: int
    samples: list[Sample]
    output: str


def run_segment(config: Path, results: Path, marker: str, *, resume: bool, stop_at: int | None, sig: int, began: float) -> Segment:
    """Run the referee on ``config`` until it ends, or until ``stop_at`` games are stored,
    then send it ``sig``."""
    command = [sys.executable, "-m", "referee", "run", str(config), "--no-live", *(["--resume"] if resume else [])]
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    log = results.parent / f"referee-{time.monotonic_ns()}.log"
    start = time.perf_counter()
    with log.open("wb") as out:
        referee = subprocess.Popen(command, cwd=common.CODE, env=env, stdout=out, stderr=subprocess.STDOUT)
    samples: list[Sample] = []
    signalled = ""
    at_games = 0
    while referee.poll() is None:
        games = stored(results)
        with contextlib.suppress(OSError, ValueError, StopIteration):  # the process ending meanwhile
            status = Path(f"/proc/{referee.pid}/status").read_text()
            rss = int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])
            samples.append(Sample(time.perf_counter() - began, games, rss, len(os.listdir(f"/proc/{referee.pid}/fd"))))
        if stop_at is not None and not signalled and games >= stop_at:
            referee.send_signal(sig)
            signalled, at_games = signal.Signals(sig).name.removeprefix("SIG"), games
        time.sleep(SAMPLE_S)
    code = referee.wait()
    wall = time.perf_counter() - start
    left = left_after(marker)
    return Segment(code, wall, signalled, at_games or stored(results), left, samples, log.read_text(errors="replace")[-4000:])


@dataclass
class Run:
    name: str
    folder: Path
    segments: list[Segment] = field(default_factory=list)
    replaced: int = 0  # games stored again by a later segment

    @property
    def results(self) -> Path:
        return self.folder / "soak.sqlite"


def play(tmp: Path, name: str, games: int, seed: int, mode: str, stops: list[tuple[float, int]], misbehave: float = MISBEHAVE) -> Run:
    """One league run in ``tmp/name``, signalled at each of ``stops`` (share of the games
    stored, signal) and resumed after each."""
    folder = tmp / name
    folder.mkdir()
    config = write_config(folder, games, seed, mode, misbehave)
    run = Run(name, folder)
    marker = str(folder / "bots")
    began = time.perf_counter()
    seen: dict[str, str] = {}
    for index in range(len(stops) + 1):
        stop_at, sig = (int(stops[index][0] * games), stops[index][1]) if index < len(stops) else (None, 0)
        segment = run_segment(config, run.results, marker, resume=index > 0, stop_at=stop_at, sig=sig, began=began)
        run.segments.append(segment)
        print(f"  {name}: segment {index + 1} ended with exit code {segment.code} at {segment.at_games} games "
              f"({segment.signal or 'to the end'}), {segment.left} bot processes left after {LEFT_AFTER_S:g} s", flush=True)  # fmt: skip
        if segment.signal == "" and segment.code != 0:
            raise SystemExit(f"{name}: the referee failed (exit code {segment.code}):\n{segment.output}")
        now = finished_at(run.results)
        run.replaced += sum(1 for game_id, when in seen.items() if now.get(game_id, when) != when)
        seen = now
    return run


def comparable(results: Path) -> dict[str, dict[str, Any]]:
    """Every stored record without measured times, fault texts (they name processes and
    logs) and the machine's own late decisions (asked again: the referee's, not the bot's)."""
    out = {}
    with contextlib.closing(sqlite3.connect(f"file:{results}?mode=ro", uri=True)) as db:
        for game_id, blob in db.execute("SELECT game_id, record FROM games"):
            data = json.loads(blob)
            data["actions"] = [{k: v for k, v in action.items() if k != "ms"} for action in data["actions"]]
            data["faults"] = [(f["seat"], f["bot"], f["kind"], f["decision"]) for f in data["faults"]]
            data.pop("overloads", None)
            out[game_id] = data
    return out


def standings(results: Path) -> dict[str, Any]:
    """The standings as ``referee standings --json`` gives them, without the measured
    decision times (each row's ``decision_ms``: the machine's, never the same twice)."""
    from referee.results.store import ResultsStore
    from referee.standings.table import compute_standings
    from referee.standings.verdicts import Sequential

    with ResultsStore.open_existing(results) as store:
        table = compute_standings(store.played_games(), sequential=Sequential.from_text(store.meta().get("sequential")))
        found = dict(table.to_json())
    for row in found.get("rows", []):
        row.pop("decision_ms", None)
    return found


def fault_counts(results: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(f"file:{results}?mode=ro", uri=True)) as db:
        return dict(db.execute("SELECT kind, COUNT(*) FROM faults GROUP BY kind ORDER BY kind"))


def file_size(results: Path) -> int:
    return sum(path.stat().st_size for path in results.parent.glob(results.name + "*") if path.is_file())


def rss_at(samples: list[Sample], games: int) -> Sample | None:
    return next((sample for sample in samples if sample.games >= games), None)


@dataclass
class Outcome:
    games: int
    straight: Run
    night: Run
    lost: list[str]
    extra: list[str]
    differing: list[str]
    standings_equal: bool
    faults: dict[str, int]
    file_bytes: int


def soak(tmp: Path, games: int, seed: int, mode: str, stops: list[tuple[float, int]], misbehave: float = MISBEHAVE) -> Outcome:
    """The league straight, then interrupted at ``stops`` (share of the games stored, signal)
    and resumed; what differs. ``misbehave``: the faulty bots' share of decisions they
    misbehave in."""
    straight = play(tmp, "straight", games, seed, mode, [], misbehave)
    night = play(tmp, "night", games, seed, mode, stops, misbehave)
    a, b = comparable(straight.results), comparable(night.results)
    differing = sorted(game_id for game_id in set(a) & set(b) if a[game_id] != b[game_id])
    return Outcome(
        games=len(a),
        straight=straight,
        night=night,
        lost=sorted(set(a) - set(b)),
        extra=sorted(set(b) - set(a)),
        differing=differing,
        standings_equal=standings(straight.results) == standings(night.results),
        faults=fault_counts(night.results),
        file_bytes=file_size(night.results),
    )


def stops_of(kills: int, terms: int) -> list[tuple[float, int]]:
    chosen = [(share, int(signal.SIGKILL)) for share in KILLS[:kills]] + [(share, int(signal.SIGTERM)) for share in TERMS[:terms]]
    return sorted(chosen)


def main() -> None:
    args = common.arguments(
        __doc__.splitlines()[0],
        reps=1,
        extra=[
            (("--games",), {"type": int, "default": None, "help": f"games of the league (default {GAMES:,}; --quick {GAMES_QUICK})"}),
            (("--seed",), {"type": int, "default": 15}),
            (("--kills",), {"type": int, "default": len(KILLS), "help": "kill -9 and resume this many times"}),
            (("--terms",), {"type": int, "default": len(TERMS), "help": "SIGTERM and resume this many times"}),
            (("--keep",), {"type": Path, "default": None, "help": "keep both runs' folders here"}),
        ],
    )
    games = args.games or (GAMES_QUICK if args.quick else GAMES)
    mode = "bwrap" if args.sandbox == "none" else args.sandbox  # the soak is about the sandbox: bubblewrap unless told
    load_start = os.getloadavg()
    began = time.perf_counter()
    with common.temp_dir("kws-b15-") as tmp:
        outcome = soak(tmp, games, args.seed, mode, stops_of(args.kills, args.terms))
        if args.keep is not None:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
    report(outcome, args, games, mode, load_start, time.perf_counter() - began)


def report(outcome: Outcome, args: Any, games: int, mode: str, load_start: tuple[float, ...], total_s: float) -> None:
    straight, night = outcome.straight, outcome.night
    samples = straight.segments[0].samples
    first, last = rss_at(samples, min(RSS_AT, games // 10)), rss_at(samples, max((x.games for x in samples), default=0))  # as the last game is stored
    kills = [segment for segment in night.segments if segment.signal]
    figures = [
        Figure("games", "games of the straight run", "games", [outcome.games]),
        Figure("lost", "games lost (in the straight run, not stored by the night)", "games", [len(outcome.lost) + len(outcome.extra)]),
        Figure("twice", "games played twice (stored again by a later run of the night)", "games", [night.replaced]),
        Figure("differing", "games whose record differs from the straight run's (times and the machine's late asks aside)", "games", [len(outcome.differing)]),
        Figure("standings_equal", "standings after the resumes identical to the straight run's (1 = yes)", "", [float(outcome.standings_equal)]),
        Figure("left_after_kills", f"bot processes left {LEFT_AFTER_S:g} s after each kill -9 or SIGTERM (most)", "processes", [max((s.left for s in kills), default=0)]),
        Figure("left_at_end", f"bot processes left {LEFT_AFTER_S:g} s after the end (both runs)", "processes", [straight.segments[-1].left + night.segments[-1].left]),
        Figure("rss_first", f"referee RSS at game {first.games if first else RSS_AT:,} (straight run)", "MiB", [first.rss_kb / 1024] if first else []),
        Figure("rss_last", f"referee RSS at game {last.games if last else games:,} (straight run)", "MiB", [last.rss_kb / 1024] if last else []),
        Figure("rss_ratio", f"referee RSS at the end ÷ at game {first.games if first else RSS_AT:,} (straight run)", "×", [last.rss_kb / first.rss_kb] if first and last else []),
        Figure("fds_first", f"referee open descriptors at game {first.games if first else RSS_AT:,}", "fds", [first.fds] if first else []),
        Figure("fds_last", "referee open descriptors at the end", "fds", [last.fds] if last else []),
        Figure("fds_max", "referee open descriptors, most seen (straight run)", "fds", [max(s.fds for s in samples)] if samples else []),
        Figure("bytes_per_game", "results file size per game (night)", "KiB", [outcome.file_bytes / 1024 / max(1, outcome.games)]),
        Figure("wall_straight", "wall time, straight run", "min", [straight.segments[0].wall_s / 60]),
        Figure("wall_night", "wall time, the night (its runs and restarts)", "min", [sum(s.wall_s for s in night.segments) / 60]),
        Figure("games_per_s", "games/s, straight run", "games/s", [outcome.games / straight.segments[0].wall_s]),
    ]
    for segment in night.segments:
        print(f"  night: {segment.signal or 'end'} at {segment.at_games} games, exit {segment.code}, {segment.left} left", flush=True)
    if outcome.differing:
        print(f"  differing games (first 10): {outcome.differing[:10]}", flush=True)
    common.write_json(
        args.json, "B15 soak", figures,
        games=games, bots=BOTS, faulty=FAULTY, misbehave=MISBEHAVE, exits=EXITS, concurrency=CONCURRENCY, move_ms=MOVE_MS, sandbox=mode,
        seed=args.seed, stops=[f"{segment.signal} at {segment.at_games}" for segment in kills], faults=outcome.faults,
        rss_curve=[(s.games, round(s.rss_kb / 1024, 1), s.fds) for s in samples[:: max(1, len(samples) // 40)]],
        load_start=" ".join(f"{x:.2f}" for x in load_start), load_end=" ".join(f"{x:.2f}" for x in os.getloadavg()),
        total_s=round(total_s, 1), nice=os.nice(0),
    )  # fmt: skip


if __name__ == "__main__":
    main()
