"""B14 class: a league night as a class has it, and where its wall time goes. 30 Python
bots on the bot kit (``bench/bots/class_bot.py``: the sample heuristic strategy, 8 speeds
answering in ~1–10 ms of CPU, one bot that sleeps past the limit before ~3% of its
answers), movement format at tables of 4, ``GAMES`` games (whole rounds of 60), concurrency
4, ``move_ms`` = 1000, the live display on (drawn to a 160 x 50 terminal that goes
nowhere), bots started as ``referee run`` starts them (each once before game 1, then by the
pool), the standings kept as ``referee run`` keeps them where the tree has them.

Figures: games/s over the whole run (start-up included, as a teacher sees it) and over
the games alone, and the wall time split (in seconds; the tables' time divided by the
concurrency, so the parts add up to the wall time):

- **start-up**: from the run's start to game 1 (every bot started and asked Hello), and
  from the last game to the end (the pool stopping its bots);
- **bots thinking**: the decision times the referee recorded (answers on time);
- **timeouts**: the decision times of those recorded as timeouts (a table held ~1 s);
- **process starts**: bot processes started by the pool during the games;
- **referee**: the rest of the games' time (the engine, the calls' own cost, storing);
- **round ends**: tables idle while a round waits for its last tables;
- **looks**: between rounds (the standings looked at, every table idle);
- **other idle**: tables idle otherwise (the pace of a loaded machine, gaps).

``--base-tree PATH``: the working tree and the checkout at PATH (its own ``.venv``)
interleaved (each league a process of its own on its tree's code and bots,
``KWS_BENCH_TREE``), the ratio working ÷ base of games/s.

**The class's command** (``--command-games``, default 900: the teacher's lesson; 0 skips
it): ``referee run class.toml --serve 0`` as a teacher types it, in a pseudo-terminal of
160 x 50 (the live display on), with the same 30 bots in 5 tiers of 6 (``--strength`` 1.0,
0.75, 0.5, 0.25, 0: the heuristic's share of decisions). Figures: the seconds from the
command to the first game stored, and from the last game stored to the final standings'
title on the terminal; the seconds in either gap before the screen said what was happening
(``starting 30 bots``; ``writing the final standings``); and whether the class's groups
reproduce the tiers' order (pairs told apart against it: 0; pairs of different tiers told
apart). The terminal's final standings are kept in ``--capture`` (a text file) to look at.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import common
from common import Figure

BOTS = 30
SPEEDS_MS = (1.0, 2.3, 3.6, 4.9, 6.1, 7.4, 8.7, 10.0)  # CPU per answer of the 8 strategies
LATE = 0.03  # the flawed bot's share of answers slept past the limit
GAMES, GAMES_QUICK = 300, 120
MOVE_MS = 1000
CONCURRENCY = 4
PARTS = ("startup", "thinking", "timeouts", "starts", "referee", "round_ends", "looks", "other_idle")
LABELS = {
    "startup": "start-up (to game 1) and stop (after the last)", "thinking": "bots thinking", "timeouts": "timeouts (tables held)",
    "starts": "process starts during games", "referee": "referee", "round_ends": "tables idle at round ends",
    "looks": "looks between rounds", "other_idle": "other idle",
}  # fmt: skip


@dataclass
class Night:
    games: int
    wall: float
    league: float  # first game start to last finish
    timeouts: int
    parts: dict[str, float]  # seconds of wall time, PARTS


def night(games: int, mode: str, seed: int) -> Night:
    import trio
    from rich.console import Console

    from b4_throughput import Tee
    from referee.config.settings import LeagueSettings
    from referee.game.faults import FaultPolicy
    from referee.game.rules import Rules
    from referee.game.timecontrol import TimeControl
    from referee.league import pool as pool_module
    from referee.league.budget import MovementRounds
    from referee.league.pool import BotEntry
    from referee.league.preflight import check_bots
    from referee.league.run import LeagueSpec, run_league
    from referee.report.live import LiveReporter
    from referee.results.store import ResultsStore
    from referee.sandbox import SandboxSettings

    bot = common.ROOT / "bench" / "bots" / "class_bot.py"  # on the bot kit of the tree measured (--tree)
    names = [f"student-{index:02d}" for index in range(BOTS)]

    def command(index: int) -> tuple[str, ...]:
        late = ("--late", str(LATE), "--late-s", str(1.2 * MOVE_MS / 1000)) if index == BOTS - 1 else ()
        speed = SPEEDS_MS[index % len(SPEEDS_MS)]
        return ("python", str(bot), "--tree", str(common.CODE), "--think-ms", str(speed), "--seed", str(seed * 100 + index), *late)

    starts: list[float] = []
    start = pool_module.BotPool._start

    async def timed_start(self: pool_module.BotPool, *args: Any, **kwargs: Any) -> object:
        began = time.perf_counter()
        try:
            return await start(self, *args, **kwargs)
        finally:
            starts.append(time.perf_counter() - began)

    began = time.perf_counter()
    with common.temp_dir("kws-b14-") as tmp:
        spec = LeagueSpec(
            name="class", bots=tuple(BotEntry(name=name, command=command(index), directory=bot.parent) for index, name in enumerate(names)),
            rules=Rules(), time=TimeControl(move_ms=MOVE_MS), faults=FaultPolicy(), sandbox=SandboxSettings(mode=mode),  # type: ignore[arg-type]
            concurrency=CONCURRENCY, run_dir=tmp / "class",
        )  # fmt: skip
        league = LeagueSettings(
            name="class", seed=seed, table_size=4, deals=1, concurrency=CONCURRENCY, results=tmp / "class.sqlite",
            format="movement", challengers=(), games=games,
        )  # fmt: skip
        trouble = trio.run(check_bots, spec)
        assert not trouble, trouble
        store = ResultsStore.open(tmp / "class.sqlite", league="class", fingerprint="bench", config_text="", resume=False)
        played: dict[str, list[float]] = {}
        rounds: list[tuple[float, float, list[str]]] = []  # (asked, given, its games)

        class Times:
            def game_started(self, fixture: Any) -> None:
                played[fixture.game_id] = [time.perf_counter()]

            def game_finished(self, record: Any) -> None:
                played[record.game_id].append(time.perf_counter())
                played[record.game_id].append(record)

        console = Console(file=open(os.devnull, "w"), force_terminal=True, width=160, height=50, color_system="standard")  # noqa: SIM115
        try:
            from referee.cli.setup import FeedStandings, StoreStandings  # type: ignore[attr-defined]

            kept: Any = StoreStandings(store, spec)
        except ImportError:
            from referee.cli.setup import store_standings

            kept, FeedStandings = None, None
        standings = kept if kept is not None else (lambda sequential=None: store_standings(store, spec, sequential))
        schedule = MovementRounds(league, names, store, standings, say=lambda line: None)
        ask = schedule.next_round

        def next_round() -> Any:
            asked = time.perf_counter()
            batch = ask()
            rounds.append((asked, time.perf_counter(), [] if batch is None else [fixture.game_id for fixture in batch]))
            return batch

        schedule.next_round = next_round  # type: ignore[method-assign]
        run_clock = schedule.clock_of_run
        run_clock.start()
        live = LiveReporter(console, run_clock.progress, 0, standings)
        told: Any = Tee(live, Times())
        if kept is not None:
            told = FeedStandings(told, kept)
        pool_module.BotPool._start = timed_start  # type: ignore[method-assign]
        try:
            with live:
                trio.run(run_league, spec, schedule, store, told)
        finally:
            pool_module.BotPool._start = start  # type: ignore[method-assign]
            store.close()
    ended = time.perf_counter()
    return split(played, rounds, starts, began, ended)


def split(played: dict[str, list[Any]], rounds: list[tuple[float, float, list[str]]], starts: list[float], began: float, ended: float) -> Night:
    """The wall time's parts (module doc) from each game's start and finish, the rounds and
    the pool's starts."""
    first = min(times[0] for times in played.values())
    last = max(times[1] for times in played.values())
    c = CONCURRENCY
    thinking = timeouts = 0.0
    late = 0
    for _, _, record in played.values():
        for action in record.actions:
            if action.ms is None:
                continue
            if action.fault == "timeout":
                timeouts += action.ms / 1000
                late += 1
            else:
                thinking += action.ms / 1000
    in_games = sum(finish - start for start, finish, _ in played.values())
    looks = sum(given - asked for asked, given, _ in rounds[1:])  # the first is before game 1
    round_ends = 0.0
    for _, _, ids in rounds:
        games = [played[game_id] for game_id in ids if game_id in played]
        if not games:
            continue
        tail_from, tail_to = max(times[0] for times in games), max(times[1] for times in games)
        busy = sum(max(0.0, min(finish, tail_to) - max(start, tail_from)) for start, finish, _ in games)
        round_ends += c * (tail_to - tail_from) - busy
    starts_s = sum(starts)
    idle = c * (last - first) - in_games
    parts = {
        "startup": first - began,
        "thinking": thinking / c,
        "timeouts": timeouts / c,
        "starts": starts_s / c,
        "referee": (in_games - thinking - timeouts - starts_s) / c,
        "round_ends": round_ends / c,
        "looks": looks,
        "other_idle": (idle - round_ends - c * looks) / c,
    }
    parts["startup"] += ended - last  # the end: the pool's stop
    return Night(len(played), ended - began, last - first, late, parts)


TIERS = (1.0, 0.75, 0.5, 0.25, 0.0)  # the heuristic's share of decisions: 6 bots in each tier
COMMAND_GAMES, COMMAND_GAMES_QUICK = 900, 120
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r")


@dataclass
class Command:
    first_game: float  # s from the command to the first game stored
    end_gap: float  # s from the last game stored to the final standings' title on the terminal
    silent_start: float  # s from the command to the first "starting … bots" on the terminal
    silent_end: float  # s from the last game stored to "writing the final standings" on the terminal
    games: int
    wall: float
    wrong_way: int  # pairs told apart against the tiers' order
    apart_tiers: int  # pairs of different tiers told apart
    tier_pairs: int  # pairs of different tiers


def class_config(tmp: Path, games: int, mode: str, seed: int) -> Path:
    """The lesson's league file: 30 tiered class bots, movement at tables of 4."""
    bot = common.ROOT / "bench" / "bots" / "class_bot.py"
    lines = [
        "[league]", 'name = "class"', f"seed = {seed}", "table_size = 4", 'format = "movement"', f"games = {games}",
        f"concurrency = {CONCURRENCY}", f'results = "{tmp / "class.sqlite"}"',
        "[time]", f"move_ms = {MOVE_MS}", "[sandbox]", f'mode = "{mode}"',
    ]  # fmt: skip
    for index in range(BOTS):
        late = ["--late", str(LATE), "--late-s", str(1.2 * MOVE_MS / 1000)] if index == BOTS - 1 else []
        words = [
            "python", str(bot), "--tree", str(common.CODE), "--think-ms", str(SPEEDS_MS[index % len(SPEEDS_MS)]),
            "--strength", str(TIERS[index // (BOTS // len(TIERS))]), "--seed", str(seed * 100 + index), *late,
        ]  # fmt: skip
        lines += ["[[bots]]", f'name = "student-{index:02d}"', "command = [" + ", ".join(json.dumps(word) for word in words) + "]"]
    path = tmp / "class.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def class_command(games: int, mode: str, seed: int, capture: Path | None) -> Command:
    """``referee run class.toml --serve 0`` in a pseudo-terminal (module doc)."""
    import pty

    from referee.results.store import ResultsStore
    from referee.standings.table import compute_standings

    with common.temp_dir("kws-b14c-") as tmp:
        config = class_config(tmp, games, mode, seed)
        output: list[tuple[float, str]] = []  # (POSIX s, text without escapes)
        began = time.time()
        pid, fd = pty.fork()
        if pid == 0:  # the child: the referee, on a 160 x 50 terminal
            os.environ.update(COLUMNS="160", LINES="50", TERM="xterm-256color", GRPC_VERBOSITY="ERROR")
            os.execv(sys.executable, [sys.executable, "-m", "referee", "run", str(config), "--serve", "0"])
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        raw = []
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            raw.append(data)
            output.append((time.time(), ANSI.sub("", data.decode("utf-8", "replace"))))
        _, status = os.waitpid(pid, 0)
        ended = time.time()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("the class's command failed:\n" + "".join(text for _, text in output)[-3000:])
        with ResultsStore.open_existing(tmp / "class.sqlite") as store:
            finished = store.finish_times()
            standings = compute_standings(store.played_games())
    text = "".join(chunk for _, chunk in output)
    if capture is not None:
        capture.write_text(text[text.rfind("Standings — class") - 80 :] if "Standings — class" in text else text[-20000:])

    def first_seen(word: str, after: float = 0.0) -> float:
        tail = ""
        for at, chunk in output:
            if at >= after and word in tail + chunk:
                return at
            tail = (tail + chunk)[-len(word) :]
        return math.inf

    first, last = finished[0], finished[-1]
    tier = {f"student-{index:02d}": index // (BOTS // len(TIERS)) for index in range(BOTS)}
    apart = standings.groups.apart
    return Command(
        first_game=first - began, end_gap=first_seen("Standings — class", last) - last,
        silent_start=first_seen(f"starting {BOTS} bots") - began, silent_end=first_seen("writing the final standings", last) - last,
        games=len(finished), wall=ended - began,
        wrong_way=sum(1 for a, b in apart if tier[a] > tier[b]), apart_tiers=sum(1 for a, b in apart if tier[a] != tier[b]),
        tier_pairs=sum(1 for a in tier for b in tier if a < b and tier[a] != tier[b]),
    )  # fmt: skip


def child_night(tree: Path, python: Path, games: int, mode: str, seed: int) -> Night:
    task = json.dumps({"games": games, "mode": mode, "seed": seed})
    env = {**os.environ, "KWS_BENCH_TREE": str(tree), "GRPC_VERBOSITY": "ERROR"}
    done = subprocess.run([str(python), __file__, "--child", task], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the league on {tree} failed:\n{done.stderr[-3000:]}")
    return Night(**json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        task = json.loads(sys.argv[2])
        print(json.dumps(asdict(night(task["games"], task["mode"], task["seed"]))))
        return
    args = common.arguments(__doc__.splitlines()[0], reps=3, extra=[
        (("--base-tree",), {"default": None, "help": "a checkout of the base (its own .venv) run interleaved with this one"}),
        (("--base-python",), {"default": None, "help": "the base's python (default BASE_TREE/.venv/bin/python)"}),
        (("--command-games",), {"type": int, "default": None, "help": f"games of the class's command (default {COMMAND_GAMES}; {COMMAND_GAMES_QUICK} with --quick; 0: skip it)"}),
        (("--command-reps",), {"type": int, "default": 1, "help": "repetitions of the class's command (default 1)"}),
        (("--capture",), {"type": Path, "default": None, "help": "keep the terminal's final standings of the class's command in this file"}),
        (("--nights",), {"type": int, "default": None, "help": "repetitions of the wall-time split (default --reps; 0: skip it)"}),
    ])  # fmt: skip
    games = GAMES_QUICK if args.quick else GAMES
    trees = {"tree": (common.ROOT, Path(sys.executable))}
    if args.base_tree:
        base = Path(args.base_tree).resolve()
        trees["base"] = (base, Path(args.base_python or base / ".venv" / "bin" / "python"))
    nights: dict[str, list[Night]] = {name: [] for name in trees}
    for rep in range(args.reps if args.nights is None else args.nights):
        for name in sorted(trees, reverse=rep % 2 == 1):
            tree, python = trees[name]
            result = child_night(tree, python, games, args.sandbox, rep)
            nights[name].append(result)
            parts = ", ".join(f"{part} {result.parts[part]:.1f}" for part in PARTS)
            print(f"  rep {rep} {name}: {result.games / result.wall:.2f} games/s, wall {result.wall:.1f} s: {parts}", flush=True)
    commands = []
    if args.command_games is None:
        command_games = COMMAND_GAMES_QUICK if args.quick else COMMAND_GAMES
    else:
        command_games = args.command_games
    for rep in range(args.command_reps if command_games else 0):
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        result = class_command(command_games, args.sandbox, 7 + rep, args.capture)
        commands.append(result)
        print(f"  command rep {rep}: {result.games} games, first game {result.first_game:.1f} s, final standings {result.end_gap:.1f} s after the last game, "
              f"silent {result.silent_start:.1f} / {result.silent_end:.1f} s, {result.wrong_way} pairs against the tiers (load {load})", flush=True)
    figures: list[Figure] = []
    if commands:
        label = f"class's command ({commands[0].games} games, 30 bots in {len(TIERS)} tiers)"
        figures += [
            Figure("command_first_game", f"{label}: command → first game stored", "s", [c.first_game for c in commands]),
            Figure("command_end_gap", f"{label}: last game stored → final standings on the terminal", "s", [c.end_gap for c in commands]),
            Figure("command_silent_start", f"{label}: command → the terminal says the bots are starting", "s", [c.silent_start for c in commands]),
            Figure("command_silent_end", f"{label}: last game → the terminal says the final standings are being written", "s", [c.silent_end for c in commands]),
            Figure("command_wall", f"{label}: wall time", "s", [c.wall for c in commands]),
            Figure("command_wrong_way", f"{label}: pairs the groups told apart against the tiers' order", "pairs", [float(c.wrong_way) for c in commands]),
            Figure("command_apart_tiers", f"{label}: pairs of different tiers the groups told apart (of {commands[0].tier_pairs})", "pairs", [float(c.apart_tiers) for c in commands]),
        ]
    for name, runs in nights.items():
        if not runs:
            continue
        who = "working tree" if name == "tree" else "base tree"
        figures += [
            Figure(f"{name}_games", f"{who}: games/s, start-up included", "games/s", [run.games / run.wall for run in runs]),
            Figure(f"{name}_games_league", f"{who}: games/s, game 1 to the last", "games/s", [run.games / run.league for run in runs]),
            Figure(f"{name}_wall", f"{who}: wall time", "s", [run.wall for run in runs]),
            *(Figure(f"{name}_{part}", f"{who}: {LABELS[part]}", "s", [run.parts[part] for run in runs]) for part in PARTS),
            Figure(f"{name}_timeouts", f"{who}: decisions recorded as timeouts", "", [float(run.timeouts) for run in runs]),
        ]
    if nights.get("base"):
        figures.append(Figure(
            "ratio", "games/s working ÷ base (start-up included)", "×",
            common.ratio_values([run.games / run.wall for run in nights["tree"]], [run.games / run.wall for run in nights["base"]]),
        ))  # fmt: skip
    common.write_json(
        args.json, "B14 class", figures, games=games, bots=BOTS, concurrency=CONCURRENCY, move_ms=MOVE_MS, base_tree=args.base_tree,
        command_games=command_games, tiers=list(TIERS),
    )  # fmt: skip


if __name__ == "__main__":
    main()
