"""B8 cluster overhead: wall time per game of a league through Dask (``referee.cluster``
on a ``LocalCluster`` of 2 worker processes of 1 thread each) against the local runner
at the same total concurrency (2), 8 instant bots at tables of 4, every game stored.

Taken over the steady state, as B4: from the finish of game ``3 × concurrency`` to the
last, so the bots' start-up (on each worker: its own processes) is left out. Each
repetition plays a league of its own name, so no worker reuses the processes of an
earlier repetition. Overhead = cluster's s/game ÷ local's − 1, within a repetition. The
workers run as docs/cluster.md advises (Dask's statistical profiler off). CPU per game sums
every process of the league (referee or coordinator, scheduler, nannies, workers, bots), a
figure less at the mercy of other load on the machine than wall time.
"""

from __future__ import annotations

import common
from common import Figure

CONCURRENCY = 2
MEASURED_GAMES = 48


def tree_cpu_s() -> float:
    """CPU time (s, user + system) of this process and every live process below it: the
    referee, the Dask scheduler, nannies and workers of the LocalCluster, and every bot."""
    import os

    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(children.get(pid, ()))
    return total


class Reporter:
    """Counts finished games; reads the clock and the CPU of the process tree at the end
    of the warm-up and at the last game."""

    def __init__(self, warmup: int, total: int) -> None:
        self.warmup, self.total, self.done = warmup, total, 0
        self.marks: list[tuple[float, float]] = []

    def game_started(self, fixture: object) -> None:
        return None

    def game_finished(self, record: object) -> None:
        import time

        self.done += 1
        if self.done in (self.warmup, self.total):
            self.marks.append((time.perf_counter(), tree_cpu_s()))


def league(runner: object, name: str, games: int, mode: str, seed: int) -> tuple[float, float]:
    """(wall s, CPU s of the whole process tree) per game over the measured window of one league run."""
    from dataclasses import replace

    import trio

    from fixtures import league_spec
    from referee.league.run import run_league
    from referee.results.store import ResultsStore
    from referee.schedule.make import make_fixtures

    names = [f"bot{index}" for index in range(8)]
    warmup = 3 * CONCURRENCY
    fixtures = make_fixtures(names, 4, deals=1, seed=seed)[: warmup + games]
    with common.temp_dir("kws-b7-") as tmp:
        spec = replace(league_spec(names, tmp / "league", mode=mode, concurrency=CONCURRENCY), name=name)
        store = ResultsStore.open(tmp / "league.sqlite", league=name, fingerprint="bench", config_text="", resume=False)
        reporter = Reporter(warmup, len(fixtures))
        try:
            trio.run(run_league, spec, fixtures, store, reporter, runner)
        finally:
            store.close()
    (wall0, cpu0), (wall1, cpu1) = reporter.marks
    return (wall1 - wall0) / games, (cpu1 - cpu0) / games


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    from distributed import Client, LocalCluster

    from referee.cluster.runner import ClusterRunner
    from referee.sandbox import SandboxSettings

    import dask

    dask.config.set({"distributed.worker.profile.enabled": False})  # as docs/cluster.md advises for workers
    games = 12 if args.quick else MEASURED_GAMES
    local: list[tuple[float, float]] = []
    cluster: list[tuple[float, float]] = []
    with LocalCluster(
        n_workers=CONCURRENCY, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
    ) as running, Client(running) as client:
        runner = ClusterRunner(client, sandbox=SandboxSettings(mode=args.sandbox))  # type: ignore[arg-type]
        for rep in range(args.reps):
            local.append(league(None, f"b7-local-{rep}", games, args.sandbox, seed=rep))
            cluster.append(league(runner, f"b7-cluster-{rep}", games, args.sandbox, seed=rep))
            runner.close()  # stop this repetition's bot processes on the workers
    figures = [
        Figure("local_ms", f"local runner, concurrency {CONCURRENCY}: wall time per game", "ms", [w * 1000 for w, _ in local]),
        Figure("cluster_ms", f"Dask, {CONCURRENCY} workers × 1 thread: wall time per game", "ms", [w * 1000 for w, _ in cluster]),
        Figure("overhead", "Dask's extra wall time per game (cluster ÷ local − 1)", "%", [(c[0] / l[0] - 1) * 100 for c, l in zip(cluster, local)]),
        Figure("local_cpu_ms", "local runner: CPU per game (referee and bots)", "ms", [c * 1000 for _, c in local]),
        Figure("cluster_cpu_ms", "Dask: CPU per game (coordinator, scheduler, workers and bots)", "ms", [c * 1000 for _, c in cluster]),
        Figure("cpu_overhead", "Dask's extra CPU per game (cluster ÷ local − 1)", "%", [(c[1] / l[1] - 1) * 100 for c, l in zip(cluster, local)]),
    ]
    common.write_json(args.json, "B8 cluster", figures, measured_games=games, concurrency=CONCURRENCY, sandbox=args.sandbox)


if __name__ == "__main__":
    main()
