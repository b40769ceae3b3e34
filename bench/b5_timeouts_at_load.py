"""B5 timeouts at load: 8 bots that answer in half of ``move_ms`` play a league at tables
of 4 with ``concurrency`` 4 (on this machine: 2 cores); the fraction of decisions recorded
as timeouts must be 0. Variants: bots that busy-wait (``spin``: the cores are full, as
with bots that think) and bots that sleep. Also reported: the measured decision times
(p50, p99, max) as a fraction of ``move_ms``; a timeout needs more than
(``move_ms`` + ``grace_ms``) ÷ ``move_ms``.

Everything is the referee's real code: ``run_league`` with its pool, sandbox, client,
time control and store (a temporary results file).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import common
from common import Figure

BOT = common.BOTS / "half_time_bot.py"
MOVE_MS = 1000  # the [time] default
GRACE_MS = 100  # the [time] default
CONCURRENCY = 4
GAMES = 16
WORK = ("spin", "sleep")


def league(work: str, games: int, mode: str, seed: int, move_ms: int) -> tuple[int, int, list[float]]:
    """(decisions answered by bots, timeouts, decision times in ms) of one league run."""
    import trio

    from fixtures import NullReporter
    from referee.game.faults import FaultPolicy
    from referee.game.rules import Rules
    from referee.game.timecontrol import TimeControl
    from referee.league.pool import BotEntry
    from referee.league.run import LeagueSpec, run_league
    from referee.results.store import ResultsStore
    from referee.sandbox import SandboxSettings, resolve_mode
    from referee.schedule.make import make_fixtures

    names = [f"half{index}" for index in range(8)]
    fixtures = make_fixtures(names, 4, deals=1, seed=seed)[:games]
    effective, _ = resolve_mode(SandboxSettings(mode=mode))  # type: ignore[arg-type]
    with common.temp_dir("kws-b5-") as tmp:
        spec = LeagueSpec(
            name="bench",
            bots=tuple(BotEntry(name, ("python", str(BOT), f"--{work}"), directory=common.BOTS) for name in names),
            rules=Rules(),
            time=TimeControl(move_ms=move_ms, grace_ms=GRACE_MS, startup_ms=60_000),
            faults=FaultPolicy(),
            sandbox=SandboxSettings(mode=effective),  # type: ignore[arg-type]
            concurrency=CONCURRENCY,
            run_dir=tmp / "league",
        )
        store = ResultsStore.open(tmp / "league.sqlite", league="bench", fingerprint="bench", config_text="", resume=False)
        try:
            trio.run(run_league, spec, fixtures, store, NullReporter())
            records = list(store.records())
        finally:
            store.close()
    answered = [action for record in records for action in record.actions if action.ms is not None]
    for fault in (fault for record in records for fault in record.faults if fault.kind != "timeout"):
        print(f"unexpected fault: {fault.kind} of {fault.bot}: {fault.detail}", file=sys.stderr)
    timeouts = sum(1 for action in answered if action.fault == "timeout")
    return len(answered), timeouts, [action.ms for action in answered if action.ms is not None]


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1] if len(values) > 1 else values[0]


def arguments() -> argparse.Namespace:
    """``common.arguments`` plus ``--move-ms`` and ``--games``; the sandbox defaults to
    ``auto`` here (a league night's setting: bots in bwrap with one CPU each)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1, help="repetitions per variant (default 1)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here as JSON")
    parser.add_argument("--quick", action="store_true", help=f"8 games instead of {GAMES} (a smoke run)")
    parser.add_argument("--sandbox", default="auto", choices=("none", "rlimits", "bwrap", "auto"))
    parser.add_argument("--move-ms", type=int, default=MOVE_MS, help=f"move_ms of the league (default {MOVE_MS})")
    parser.add_argument("--games", type=int, default=GAMES, help=f"games per variant (default {GAMES})")
    args = parser.parse_args()
    if args.reps < 1 or args.games < 1 or args.move_ms < 2:
        parser.error("--reps and --games must be at least 1, --move-ms at least 2")
    return args


def main() -> None:
    args = arguments()
    games = 8 if args.quick else args.games
    move_ms = args.move_ms
    fraction: dict[str, list[float]] = {work: [] for work in WORK}
    decisions: dict[str, list[float]] = {work: [] for work in WORK}
    p50: dict[str, list[float]] = {work: [] for work in WORK}
    p99: dict[str, list[float]] = {work: [] for work in WORK}
    worst: dict[str, list[float]] = {work: [] for work in WORK}
    for rep in range(args.reps):
        for work in WORK:
            answered, timeouts, times = league(work, games, args.sandbox, seed=rep, move_ms=move_ms)
            fraction[work].append(timeouts / answered)
            decisions[work].append(answered)
            p50[work].append(quantile(times, 0.50) / move_ms)
            p99[work].append(quantile(times, 0.99) / move_ms)
            worst[work].append(max(times) / move_ms)
    figures: list[Figure] = []
    for work in WORK:
        figures += [
            Figure(f"timeouts_{work}", f"{work}: decisions recorded as timeouts", "", fraction[work], note="must be 0"),
            Figure(f"decisions_{work}", f"{work}: decisions answered by bots", "", decisions[work]),
            Figure(f"p50_{work}", f"{work}: decision time p50 ÷ move_ms", "×", p50[work]),
            Figure(f"p99_{work}", f"{work}: decision time p99 ÷ move_ms", "×", p99[work]),
            Figure(f"max_{work}", f"{work}: decision time max ÷ move_ms", "×", worst[work],
                   note=f"a timeout needs > {(move_ms + GRACE_MS) / move_ms:g}"),
        ]  # fmt: skip
    common.write_json(
        args.json, "B5 timeouts at load", figures,
        move_ms=move_ms, grace_ms=GRACE_MS, concurrency=CONCURRENCY, games=games, sandbox=args.sandbox, machine=common.machine(),
    )  # fmt: skip


if __name__ == "__main__":
    main()
