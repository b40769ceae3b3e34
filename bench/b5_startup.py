"""B5 start-up: from spawning the Python sample bot (``sample_bots/python/random_bot.py``)
to its first answered ``Hello``, started by ``referee.sandbox.launch`` plain (mode
``none``) and sandboxed (``bwrap`` where bubblewrap runs here, and ``rlimits``), next
to the import baseline: ``python -c "import grpc"`` and the same plus the generated
stubs, from spawn to exit. Also the instant bot (grpc and the stubs, no bot kit), and,
plain, the sample bot's first decision asked right after Hello (when the bot is ready to
play, not only to greet).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import common
from common import Figure

IMPORT_GRPC = "import grpc"
IMPORT_STUBS = "import grpc; from referee._proto.knockout_whist.v1 import bot_pb2, bot_pb2_grpc"


def spawn_to_exit(code: str) -> float:
    """ms from spawning ``python -c code`` (the referee's interpreter) to its exit."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=common.ROOT)
    return (time.perf_counter() - began) * 1000


LAUNCH_MS: dict[str, list[float]] = {}  # how long launch() itself took, by mode


FIRST_DECISION_MS: list[float] = []  # the sample bot, plain: spawn to its first decision answered


def spawn_to_hello(script: str, mode: str, slot: int, run_dir: Path, decide: bool = False) -> float:
    """ms from ``launch`` of ``python script`` to its first answered Hello (BotClient);
    ``decide``: then ask one decision at once (a realistic one) and record when it is answered."""
    import trio

    from referee.sandbox import SandboxSettings, launch
    from referee.transport.client import BotClient, DecisionAsk

    async def hello(address: str) -> None:
        client = BotClient(address, "b5")
        try:
            await client.hello(30.0)
            hello_ms.append((time.perf_counter() - began) * 1000)
            if decide:
                from fixtures import realistic_decision

                view, events, number = realistic_decision()
                reply = client.decide_blocking(DecisionAsk(view, events, number, 0, 0, 30.0))
                assert reply.fault is None, reply.detail
                FIRST_DECISION_MS.append((time.perf_counter() - began) * 1000)
        finally:
            client.close()

    hello_ms: list[float] = []

    began = time.perf_counter()
    process = launch(
        ("python", script), name="b5", slot=slot, bot_dir=Path(script).parent, run_dir=run_dir,
        settings=SandboxSettings(mode=mode),  # type: ignore[arg-type]
    )
    if script == str(common.SAMPLE_BOT):
        LAUNCH_MS.setdefault(mode, []).append((time.perf_counter() - began) * 1000)
    try:
        trio.run(hello, process.address)
        return hello_ms[0]
    finally:
        process.kill()


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    from referee.sandbox import bwrap_problem

    problem = bwrap_problem()
    from referee.sandbox.command import python_paths
    from referee.sandbox.launch import rlimits_problem

    # a root referee whose Python other users cannot reach refuses the rlimits mode (docs/sandbox.md)
    rlimits = [] if rlimits_problem(list(python_paths())) else ["rlimits"]
    modes = ["none", *rlimits] + (["bwrap"] if problem is None else [])
    sample, instant = str(common.SAMPLE_BOT), str(common.INSTANT_BOT)
    variants: dict[str, Callable[[int, Path], float]] = {
        "import_grpc": lambda slot, tmp: spawn_to_exit(IMPORT_GRPC),
        "import_stubs": lambda slot, tmp: spawn_to_exit(IMPORT_STUBS),
        "instant_none": lambda slot, tmp: spawn_to_hello(instant, "none", slot, tmp),
    }
    for mode in modes:
        variants[f"sample_{mode}"] = partial(spawn_to_hello, sample, mode, decide=mode == "none")
    results: dict[str, list[float]] = {key: [] for key in variants}
    from referee.sandbox import SandboxSettings, resolve_mode

    for mode in modes:  # as the referee does once at start: probe cgroups, build the seccomp filter
        resolve_mode(SandboxSettings(mode=mode))  # type: ignore[arg-type]
    with common.temp_dir("kws-b5s-") as tmp:
        spawn_to_exit(IMPORT_STUBS)  # warm the file cache
        slot = 700
        for _ in range(args.reps):
            for key, run in variants.items():
                slot += 1
                results[key].append(run(slot, tmp / "run"))
    figures = [
        Figure("import_grpc", 'python -c "import grpc", spawn to exit', "ms", results["import_grpc"]),
        Figure("import_stubs", "python -c \"import grpc + generated stubs\", spawn to exit (the baseline)", "ms", results["import_stubs"]),
        Figure("instant_none", "instant bot (grpc + stubs, no bot kit), plain: spawn to Hello", "ms", results["instant_none"]),
        Figure("sample_none", "Python sample bot, plain (mode none): spawn to Hello", "ms", results["sample_none"]),
    ]
    if "sample_rlimits" in results:
        figures.append(Figure("sample_rlimits", "Python sample bot, rlimits: spawn to Hello", "ms", results["sample_rlimits"]))
    if "sample_bwrap" in results:
        figures.append(Figure("sample_bwrap", "Python sample bot, bwrap: spawn to Hello", "ms", results["sample_bwrap"]))
        figures.append(Figure("bwrap_extra", "bwrap − plain", "ms", [a - b for a, b in zip(results["sample_bwrap"], results["sample_none"], strict=True)]))
    figures.append(Figure("sample_none_decision", "Python sample bot, plain: spawn to its first decision (asked right after Hello)", "ms", FIRST_DECISION_MS))
    for mode, values in LAUNCH_MS.items():
        figures.append(Figure(f"launch_{mode}", f"of which launch() itself returned after ({mode})", "ms", values))
    figures.append(Figure("plain_over_baseline", "plain ÷ baseline (grpc + stubs)", "×", common.ratio_values(results["sample_none"], results["import_stubs"])))
    figures.append(Figure("plain_over_grpc", 'plain ÷ "import grpc"', "×", common.ratio_values(results["sample_none"], results["import_grpc"])))
    common.write_json(args.json, "B5 start-up", figures, bwrap=problem or "runs here")


if __name__ == "__main__":
    main()
