"""B10 shared futex waits under bubblewrap: the referee answers them (seccomp user
notification, ``referee/sandbox/futexwait.py``) against bubblewrap's filter refusing them
with ``EINVAL`` (where notification is missing). Interleaved, both in one referee:

- each sample bot (Python, Node, C++, Go, Java; those built here) from ``launch`` to its
  first answered ``Hello``;
- an idle Java bot (after Hello) over 10 s (2 s with ``--quick``): the CPU time of its
  processes, and the referee's: waits answered a second and the supervisor's CPU per
  answer; then 8 idle Java bots at once: answers a second and the supervisor's CPU.
"""

from __future__ import annotations

import os
import shutil
import time
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
    with common.temp_dir("kws-b10-") as tmp:
        for _ in range(args.reps):
            for language in languages:
                for variant in VARIANTS:
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
    common.write_json(args.json, "B10 shared futex waits", figures, languages=" ".join(languages))


if __name__ == "__main__":
    main()
