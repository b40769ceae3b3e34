"""B11 bot processes the deal rule keeps: a class-size league (30 Python sample bots, tables
of 4, the movement format, concurrency 4, bubblewrap) played by ``referee run``, sampled
every 0.5 s: the bot processes alive and their memory (PSS and RSS, whole process trees),
at the peak; the bot processes started per game; games/s. Two variants, interleaved:

- ``machine``: as run (on a machine with memory to spare the pool keeps its idle processes);
- ``limit``: the referee and its bots in a memory cgroup of ``--limit-mb`` MiB (a container),
  where the pool stops idle processes when less than 1/8 of it is spare
  (``referee/league/spare.py``). Needs root and a writable memory cgroup (else skipped).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import common
from common import Figure

BOTS = 30
GAMES = 240
LIMIT_MB = 2048


def config(folder: Path, games: int) -> Path:
    lines = [
        "[league]", 'name = "b11"', "seed = 11", "table_size = 4", "concurrency = 4", 'format = "movement"',
        f"games = {games}", f'results = "{folder / "b11.sqlite"}"',
        "[time]", "move_ms = 2000", "startup_ms = 30000", "[sandbox]", 'mode = "bwrap"',
    ]  # fmt: skip
    for number in range(BOTS):
        lines += ["[[bots]]", f'name = "bot{number:02d}"', f'command = ["python", "{common.SAMPLE_BOT}"]']
    path = folder / "b11.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _tree(root: int) -> list[int]:
    """Every process below ``root`` (not ``root`` itself; psutil)."""
    import psutil

    try:
        return [child.pid for child in psutil.Process(root).children(recursive=True)]
    except psutil.Error:
        return []


def _rollup(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of ``pid`` in KiB (0, 0 when it is gone)."""
    pss = rss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return pss, rss


class Sampler:
    """Samples the bot processes below the referee (whose own pid is left out) until stopped:
    the peak of the bot processes' PSS, their RSS, and of bwrap sandboxes alive."""

    def __init__(self, referee: int) -> None:
        self.referee = referee
        self.peak_pss_kib = self.peak_rss_kib = self.peak_bots = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            pids = _tree(self.referee)
            totals = [_rollup(pid) for pid in pids]
            self.peak_pss_kib = max(self.peak_pss_kib, sum(pss for pss, _ in totals))
            self.peak_rss_kib = max(self.peak_rss_kib, sum(rss for _, rss in totals))
            bots = sum(1 for pid in pids if _comm(pid) == "bwrap" and _comm(_parent(pid)) != "bwrap")
            self.peak_bots = max(self.peak_bots, bots)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2 :].split()[1])
    except (OSError, ValueError):
        return 0


def memory_cgroup(limit_mb: int) -> Path | None:
    """A fresh memory cgroup of ``limit_mb`` MiB below ours (v2 or v1), or None."""
    name = f"kwb11-{os.getpid()}"
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _id, controllers, path = line.split(":", 2)
        if controllers == "" and Path("/sys/fs/cgroup/cgroup.controllers").exists():
            folder, limit = Path("/sys/fs/cgroup") / path.lstrip("/") / name, "memory.max"
        elif "memory" in controllers.split(","):
            folder, limit = Path("/sys/fs/cgroup/memory") / path.lstrip("/") / name, "memory.limit_in_bytes"
        else:
            continue
        try:
            folder.mkdir()
            (folder / limit).write_text(str(limit_mb * 1024 * 1024))
            return folder
        except OSError:
            return None
    return None


def play(folder: Path, games: int, cgroup: Path | None) -> dict[str, float]:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(mode=0o755)
    path = config(folder, games)
    argv = [sys.executable, "-m", "referee", "run", str(path), "--no-live"]
    if cgroup is not None:  # the referee joins the cgroup before it starts anything
        argv = ["/bin/sh", "-c", f'echo $$ > {cgroup / "cgroup.procs"} && exec "$@"', "sh", *argv]
    began = time.perf_counter()
    process = subprocess.Popen(argv, cwd=common.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = Sampler(process.pid)
    output, _ = process.communicate()
    elapsed = time.perf_counter() - began
    sampler.stop()
    if process.returncode != 0:  # a league killed (the memory cgroup's OOM killer) is a result too
        print(f"b11: the league ended with exit code {process.returncode}:\n{output[-1500:]}", flush=True)
    with sqlite3.connect(folder / "b11.sqlite") as db:
        played = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        faults = sum(len(json.loads(row[0])["faults"]) for row in db.execute("SELECT record FROM games"))
    starts = len(list((folder / "b11").glob("*.log")))
    return {
        "pss_mb": sampler.peak_pss_kib / 1024, "rss_mb": sampler.peak_rss_kib / 1024, "bots": sampler.peak_bots,
        "starts_per_game": starts / max(1, played), "games_per_s": played / elapsed, "faults": faults,
        "played": played, "completed": float(process.returncode == 0),
    }  # fmt: skip


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0], reps=1)
    from referee.sandbox import bwrap_problem

    if bwrap_problem() is not None:
        common.write_json(args.json, "B11 bot processes kept", [], skipped=bwrap_problem())
        return
    games = 48 if args.quick else GAMES
    limit_mb = int(os.environ.get("B11_LIMIT_MB", LIMIT_MB))
    cgroup = memory_cgroup(limit_mb) if os.geteuid() == 0 else None
    variants = ["machine"] + (["limit"] if cgroup is not None else [])
    results: dict[str, dict[str, list[float]]] = {variant: {} for variant in variants}
    try:
        with common.temp_dir("kws-b11-") as tmp:
            for _ in range(args.reps):
                for variant in variants:
                    measured = play(tmp / variant, games, cgroup if variant == "limit" else None)
                    for key, value in measured.items():
                        results[variant].setdefault(key, []).append(value)
    finally:
        if cgroup is not None:
            time.sleep(1)
            try:
                cgroup.rmdir()
            except OSError:
                pass
    labels = {
        "bots": ("bot processes alive at the peak", ""), "pss_mb": ("their PSS at the peak", "MB"),
        "rss_mb": ("their RSS at the peak", "MB"), "starts_per_game": ("bot processes started per game", ""),
        "games_per_s": ("games/s, starts included", "games/s"), "faults": ("faults", ""),
        "played": ("games stored", ""), "completed": ("leagues that completed (1 = all)", ""),
    }  # fmt: skip
    figures = []
    for variant in variants:
        where = "as run (memory to spare)" if variant == "machine" else f"in a {limit_mb} MiB memory cgroup"
        for key, (label, unit) in labels.items():
            figures.append(Figure(f"{variant}_{key}", f"{BOTS} bots, {games} games, {where}: {label}", unit, results[variant][key]))
    common.write_json(args.json, "B11 bot processes kept", figures, games=games, bots=BOTS)


if __name__ == "__main__":
    main()
