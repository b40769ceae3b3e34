"""A stand-in referee: launch a bot under the sandbox, print the bot's pid, wait.

argv: mode bot_dir run_dir marker script [python] (the bot's Python; ``python``, the
referee's own, by default). The test SIGKILLs this process.
"""
import sys
import time
from pathlib import Path

from referee.sandbox import SandboxSettings, launch

mode, bot_dir, run_dir, marker, script = sys.argv[1:6]
python = sys.argv[6] if len(sys.argv) > 6 else "python"
process = launch(
    [python, script],
    name="orphan",
    slot=900,
    bot_dir=Path(bot_dir),
    run_dir=Path(run_dir),
    settings=SandboxSettings(mode=mode),  # type: ignore[arg-type]
    env={"KWHIST_TEST_MARKER": marker},
)
print("LAUNCHED", process.pid, flush=True)
time.sleep(600)
