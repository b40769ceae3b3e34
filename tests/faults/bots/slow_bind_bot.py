"""Sleeps ``--delay-s`` seconds (default 13) before it binds its socket, then serves:
a bot that is slow to start (a JVM, heavy imports, a loaded machine). ``--stamp FILE``:
also appends ``<monotonic s> start`` at its start and ``<monotonic s> serving`` when it
binds, so a test can see how many bots were starting at once. ``--no-hello``: it then never
answers Hello."""

import sys
import time


def stamp(what: str) -> None:
    if "--stamp" in sys.argv:
        with open(sys.argv[sys.argv.index("--stamp") + 1], "a") as out:
            out.write(f"{time.monotonic()} {what}\n")


stamp("start")
time.sleep(float(sys.argv[sys.argv.index("--delay-s") + 1]) if "--delay-s" in sys.argv else 13.0)
stamp("serving")

from rawbot import RawBot, serve_raw  # noqa: E402  (imported after the sleep: nothing binds before it)


class Silent(RawBot):
    def Hello(self, request, context):  # noqa: N802
        time.sleep(3600)


serve_raw(Silent() if "--no-hello" in sys.argv else RawBot())
