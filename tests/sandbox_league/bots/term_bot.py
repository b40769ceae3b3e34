"""Issue 12, class 8: a bot that stops cleanly on SIGTERM (as docs/protocol.md asks) and
says so on stderr (``term: stopped cleanly``). ``--stall``: it sleeps in its 3rd decision
(says ``STALLING``), so that a test can interrupt the referee mid-game."""

import sys
import time

from onthird import serve_misbehaving


def stall(_view: object) -> None:
    if "--stall" in sys.argv:
        print("STALLING", file=sys.stderr, flush=True)
        time.sleep(600)


serve_misbehaving("term", stall)
print("term: stopped cleanly", file=sys.stderr, flush=True)
