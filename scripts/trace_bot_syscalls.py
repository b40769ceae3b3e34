"""The system calls a bot makes under bubblewrap, as ``strace`` sees them (docs/sandbox.md,
"The allowlist"): where the list in ``referee/sandbox/allowlist.py`` came from, and how to
find what a new runtime needs.

    python scripts/trace_bot_syscalls.py [--games N] [--out DIR] BOT [BOT ...]

Each BOT is what ``referee play`` takes (a sample name such as ``node``, or a command in
quotes). Every BOT plays ``--games`` games against the sample random bot under
``strace -f`` (a root referee; ``apt-get install strace``); the calls made by the bots'
processes (the random bot's too: a Python sample), from the moment bubblewrap hands over to
the bot (its seccomp filter loaded), are counted (bubblewrap's own set-up is left out; under the referee's filter a refused call
is traced too). Prints, per BOT, every call with its count, marking the ones the allowlist
refuses; ``--out`` keeps the raw traces.
"""

from __future__ import annotations

import argparse
import collections
import errno
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.sandbox import allowlist  # noqa: E402

LINE = re.compile(r"^(\d+) +(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")
RESULT = re.compile(r"\) += (-?\d+|\?)(?: /\* (\d+) in strace's PID NS \*/)?")  # with --pidns-translation: the host pid too
SETUP_TOOLS = ("prlimit", "/bin/sh", "bwrap", "futex_supervisor.py")


def bot_calls(trace: Path) -> collections.Counter[str]:
    """Calls made by bot processes in ``trace`` (``strace -f`` output): a process is a
    bot's from its ``execve`` of ``setpriv --reuid`` (a root referee's drop inside the
    sandbox, right after bubblewrap loaded the bot's filter) and every process or thread
    it then starts."""
    bots: set[int] = set()
    dropping: set[int] = set()  # pids inside an execve of setpriv --reuid
    counts: collections.Counter[str] = collections.Counter()
    for line in trace.read_text(errors="replace").splitlines():
        match = LINE.match(line)
        if match is None:
            continue
        pid, name, rest = int(match.group(1)), match.group(2) or match.group(3), match.group(4)
        result = RESULT.search(rest)
        if name == "execve" and pid not in bots:
            if rest.startswith('"') and rest.split('"')[1].endswith("/setpriv") and "--reuid=" in rest:
                dropping.add(pid)
            if pid in dropping and result is not None:  # the call's end (on this line, or resumed)
                dropping.discard(pid)
                if result.group(1) == "0":
                    bots.add(pid)
            continue
        if pid not in bots:
            continue
        counts[name] += 1
        if name in ("clone", "clone3", "fork", "vfork") and result is not None and result.group(1).isdigit():
            child = int(result.group(2) or result.group(1))
            if child > 0:
                bots.add(child)
    return counts


def trace(bot: str, games: int, out: Path) -> Path:
    """Play ``games`` games of ``bot`` against the random sample under ``strace -f``."""
    path = out / (re.sub(r"[^A-Za-z0-9]+", "_", bot).strip("_")[:40] + ".strace")
    command = [
        "strace", "-f", "-qq", "--pidns-translation", "-s", "64", "-o", str(path), "--",
        sys.executable, "-m", "referee", "play", "--sandbox", "bwrap", "--games", str(games),
        "--move-ms", "30000", "--results", str(out / "play.sqlite"), bot, "random",
    ]  # fmt: skip
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, timeout=1800)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bots", nargs="+", metavar="BOT")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--out", type=Path, help="keep the raw traces here")
    args = parser.parse_args()
    if shutil.which("strace") is None:
        sys.exit("strace is not installed (apt-get install strace)")
    allowed = allowlist.allowed_names()
    out = args.out or Path(tempfile.mkdtemp(prefix="kwhist-trace-"))
    out.mkdir(parents=True, exist_ok=True)
    for bot in args.bots:
        counts = bot_calls(trace(bot, args.games, out))
        print(f"== {bot}: {len(counts)} calls, {sum(counts.values())} made")
        for name, count in sorted(counts.items()):
            if name in allowed:
                verdict = ""
            elif name in allowlist.SILENT:
                verdict = "   refused, not named (C libraries fall back at once: ENOSYS)"
            else:
                verdict = f"   REFUSED ({errno.errorcode[allowlist.refusal(name)]})"
            print(f"  {name:24} {count:>9}{verdict}")
    if args.out is None:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
