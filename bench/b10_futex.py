"""B10 shared futex waits under bubblewrap: the referee answers them (seccomp user
notification, ``referee/sandbox/futexwait.py``, whose filter also holds the system-call
allowlist) against bubblewrap's filter refusing them with ``EINVAL`` (where notification is
missing; then that filter is the whole allowlist). Interleaved, both in one referee:

- each sample bot (Python, Node, C++, Go, Java; those built here) from ``launch`` to its
  first answered ``Hello``;
- an idle Java bot (after Hello) over 10 s (2 s with ``--quick``): the CPU time of its
  processes, and the referee's: waits answered a second and the supervisor's CPU per
  answer; then 8 idle Java bots at once: answers a second and the supervisor's CPU;
- the fair share: a bot's shared waits one after another (``tests/sandbox/bots/
  shared_waits.py``), p50 and p95 of their answers alone, beside one bot of 44 threads
  looping on shared waits (the audit's flood), and beside 12 bots of 60 threads each (720
  calls always waiting, where the supervisor answers 200 a tick); the supervisor's CPU
  during the largest flood.
"""

from __future__ import annotations

import os
import shutil
import time
import json
import statistics
from pathlib import Path

import common
from common import Figure, tree_cpu_s

SAMPLES = common.ROOT / "sample_bots"
JAVA_JAR = SAMPLES / "java" / "build" / "kwhist-java-bot.jar"
COMMANDS: dict[str, tuple[list[str], Path]] = {
    "python": (["python", str(SAMPLES / "python" / "random_bot.py")], SAMPLES / "python"),
    "node": (["node", str(SAMPLES / "node" / "bot.js")], SAMPLES / "node"),
    "cpp": ([str(SAMPLES / "cpp" / "build" / "kwhist_cpp_bot")], SAMPLES / "cpp" / "build"),
    "go": ([str(SAMPLES / "go" / "build" / "kwhist_go_bot")], SAMPLES / "go" / "build"),
    "java": (["java", "-XX:+UseSerialGC", "-jar", str(JAVA_JAR)], SAMPLES / "java" / "build"),
}
VARIANTS = ("notified", "refused")
MANY = 8  # idle Java bots at once
SHARED_WAITS = common.ROOT / "tests" / "sandbox" / "bots" / "shared_waits.py"
FLOODS = {"alone": (0, 0), "flood_1x44": (1, 44), "flood_12x60": (12, 60)}  # bots, threads each
WAITS = 200  # a measured bot's waits per repetition


def built(language: str) -> bool:
    command, _folder = COMMANDS[language]
    if language == "python":
        return True
    if language in ("node", "java"):
        return shutil.which(command[0]) is not None and Path(command[-1]).is_file() and (
            language != "node" or (SAMPLES / "node" / "node_modules").is_dir()
        )
    return os.access(command[0], os.X_OK)


def started(language: str, variant: str, slot: int, run_dir: Path) -> tuple[float, object]:
    """ms from ``launch`` to the first answered Hello, and the live BotProcess."""
    import trio

    from referee.sandbox import SandboxSettings, futexwait, launch
    from referee.transport.client import BotClient

    futexwait.enabled = variant == "notified"
    command, folder = COMMANDS[language]
    began = time.perf_counter()
    process = launch(command, name=f"b10-{language}", slot=slot, bot_dir=folder, run_dir=run_dir, settings=SandboxSettings(mode="bwrap"))

    async def hello() -> None:
        while (address := process.find_address()) is None:
            if process.exit_detail() is not None:
                raise RuntimeError(f"{language}: {process.exit_detail()}: {process.stderr_head()}")
            await trio.sleep(0.002)
        client = BotClient(address, "b10")
        try:
            await client.hello(60.0)
        finally:
            client.close()

    try:
        trio.run(hello)
    except BaseException:
        process.kill()
        raise
    return (time.perf_counter() - began) * 1000, process


def _wait_log(process: object, text: str, timeout_s: float = 300.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = process.log_path.read_text(errors="replace")  # type: ignore[attr-defined]
        if text in found:
            return found
        if process.poll() is not None:  # type: ignore[attr-defined]
            break
        time.sleep(0.05)
    raise RuntimeError(f"no {text!r} in {process.log_path}: {process.log_path.read_text(errors='replace')[-2000:]}")  # type: ignore[attr-defined]


def fair_share(flood: tuple[int, int], slot: int, folder: Path, run_dir: Path) -> tuple[list[float], float, int]:
    """A bot's shared waits (ms each, sorted) beside ``flood`` (bots, threads each), the
    supervisor's CPU a second meanwhile (ms/s), and the next free slot."""
    from referee.sandbox import SandboxSettings, futexwait, launch

    bots, threads = flood
    flooders = []
    supervisor = futexwait.supervisor()
    assert supervisor is not None
    try:
        for _ in range(bots):
            slot += 1
            flooder = launch(
                ["python", str(folder / SHARED_WAITS.name), "flood", str(threads)], name="b10-flood", slot=slot, bot_dir=folder,
                run_dir=run_dir, settings=SandboxSettings(mode="bwrap", memory_mb=2048, pids=128),
            )  # fmt: skip
            flooders.append(flooder)
            _wait_log(flooder, "FLOODING")
        slot += 1
        cpu, began = tree_cpu_s(supervisor.process.pid), time.monotonic()
        victim = launch(
            ["python", str(folder / SHARED_WAITS.name), "measure", str(WAITS)], name="b10-waits", slot=slot, bot_dir=folder,
            run_dir=run_dir, settings=SandboxSettings(mode="bwrap"),
        )  # fmt: skip
        try:
            report = json.loads(_wait_log(victim, "WAITS ").split("WAITS ", 1)[1].splitlines()[0])
            spent_ms_per_s = (tree_cpu_s(supervisor.process.pid) - cpu) / (time.monotonic() - began) * 1000
        finally:
            victim.kill()
    finally:
        for flooder in flooders:
            flooder.kill()
    return sorted(report["ms"]), spent_ms_per_s, slot


def p95(values: list[float]) -> float:
    return values[max(int(0.95 * len(values)) - 1, 0)]


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0], reps=3)
    from referee.sandbox import SandboxSettings, bwrap_problem, futexwait, resolve_mode, spawner

    problem = bwrap_problem()
    if problem is not None or not spawner.notified_available():
        common.write_json(args.json, "B10 shared futex waits", [], skipped=problem or f"no user notification: {futexwait.problem()}")
        return
    resolve_mode(SandboxSettings(mode="bwrap"))  # as the referee does once at start
    languages = [language for language in COMMANDS if built(language)]
    idle_s = 2.0 if args.quick else 10.0
    hello_ms: dict[tuple[str, str], list[float]] = {(lang, v): [] for lang in languages for v in VARIANTS}
    idle_cpu: dict[str, list[float]] = {v: [] for v in VARIANTS}
    answers_per_s: list[float] = []
    us_per_answer: list[float] = []
    many_answers_per_s: list[float] = []
    many_cpu_ms_per_s: list[float] = []
    supervisor = futexwait.supervisor()
    assert supervisor is not None
    slot = 900
    waits_p50: dict[str, list[float]] = {name: [] for name in FLOODS}
    waits_p95: dict[str, list[float]] = {name: [] for name in FLOODS}
    flood_cpu: list[float] = []
    with common.temp_dir("kws-b10-") as tmp:
        folder = tmp / "waits"
        folder.mkdir()
        folder.chmod(0o755)
        shutil.copy(SHARED_WAITS, folder / SHARED_WAITS.name)
        (folder / SHARED_WAITS.name).chmod(0o644)
        for rep in range(args.reps):
            for language in languages:
                for variant in VARIANTS if rep % 2 == 0 else VARIANTS[::-1]:  # neither always starts first
                    slot += 1
                    ms, process = started(language, variant, slot, tmp / "run")
                    hello_ms[(language, variant)].append(ms)
                    if language == "java":
                        answered, cpu = supervisor.answered, tree_cpu_s(supervisor.process.pid)
                        before = tree_cpu_s(process.pid)  # type: ignore[attr-defined]
                        time.sleep(idle_s)
                        idle_cpu[variant].append(tree_cpu_s(process.pid) - before)  # type: ignore[attr-defined]
                        if variant == "notified":
                            count = supervisor.answered - answered
                            answers_per_s.append(count / idle_s)
                            spent = tree_cpu_s(supervisor.process.pid) - cpu
                            us_per_answer.append(spent / count * 1e6 if count else float("nan"))
                    process.kill()  # type: ignore[attr-defined]
            if "java" in languages:  # several idle JVMs at once: one supervisor tick serves them all
                processes = []
                try:
                    for _ in range(MANY):
                        slot += 1
                        processes.append(started("java", "notified", slot, tmp / "run")[1])
                    answered, cpu = supervisor.answered, tree_cpu_s(supervisor.process.pid)
                    time.sleep(idle_s)
                    many_answers_per_s.append((supervisor.answered - answered) / idle_s)
                    many_cpu_ms_per_s.append((tree_cpu_s(supervisor.process.pid) - cpu) / idle_s * 1000)
                finally:
                    for process in processes:
                        process.kill()  # type: ignore[attr-defined]
        futexwait.enabled = True
        for _ in range(args.reps):  # after the starts, which the floods' aftermath would slow
            for name, flood in FLOODS.items():  # interleaved: alone, then each flood, every repetition
                ms, cpu_ms_per_s, slot = fair_share(flood, slot, folder, tmp / "run")
                waits_p50[name].append(statistics.median(ms))
                waits_p95[name].append(p95(ms))
                if name == "flood_12x60":
                    flood_cpu.append(cpu_ms_per_s)
    figures = []
    for language in languages:
        notified, refused = hello_ms[(language, "notified")], hello_ms[(language, "refused")]
        figures.append(Figure(f"hello_{language}_notified", f"{language} sample: launch to Hello, waits answered by the referee", "ms", notified))
        figures.append(Figure(f"hello_{language}_refused", f"{language} sample: launch to Hello, waits refused (EINVAL)", "ms", refused))
        figures.append(Figure(f"hello_{language}_extra", f"{language} sample: answered − refused", "ms", [a - b for a, b in zip(notified, refused, strict=True)]))
    if "java" in languages:
        figures.append(Figure("idle_java_notified", f"idle Java bot: CPU of its processes in {idle_s:g} s, waits answered", "s", idle_cpu["notified"]))
        figures.append(Figure("idle_java_refused", f"idle Java bot: CPU of its processes in {idle_s:g} s, waits refused (EINVAL)", "s", idle_cpu["refused"]))
        figures.append(Figure("answers_per_s", "idle Java bot: its waits answered per second", "/s", answers_per_s))
        figures.append(Figure("us_per_answer", "the supervisor process: CPU per answered wait", "µs", us_per_answer))
        figures.append(Figure("many_answers_per_s", f"{MANY} idle Java bots at once: waits answered per second", "/s", many_answers_per_s))
        figures.append(Figure("many_cpu_ms_per_s", f"{MANY} idle Java bots at once: the supervisor's CPU per second", "ms/s", many_cpu_ms_per_s))
    for name, (bots, threads) in FLOODS.items():
        beside = "alone" if not bots else f"beside {bots} bot{'s' if bots > 1 else ''} of {threads} threads looping on shared waits"
        figures.append(Figure(f"waits_p50_{name}", f"a bot's shared wait answered, p50, {beside}", "ms", waits_p50[name]))
        figures.append(Figure(f"waits_p95_{name}", f"a bot's shared wait answered, p95, {beside}", "ms", waits_p95[name]))
    for name in ("flood_1x44", "flood_12x60"):
        extra = [flooded - alone for flooded, alone in zip(waits_p95[name], waits_p95["alone"], strict=True)]
        figures.append(Figure(f"waits_p95_extra_{name}", f"p95 added by the flood {name.removeprefix('flood_')} (the bound: 3 ticks, 60 ms)", "ms", extra))
    figures.append(Figure("flood_cpu_ms_per_s", "the supervisor's CPU beside the 12 × 60 flood", "ms/s", flood_cpu))
    common.write_json(args.json, "B10 shared futex waits", figures, languages=" ".join(languages))


if __name__ == "__main__":
    main()
