"""Rows 9 and 10: on its 3rd decision it leaves a daemonised grandchild (its own session,
parent gone, SIGTERM ignored, sleeping an hour) that says ``DAEMON READY`` on stderr,
then plays on. ``--stall``: it then sleeps in that decision (says ``STALLING``) so that a
test can kill the referee mid-game."""

import os
import signal
import sys
import time

from onthird import serve_misbehaving

STALL = "--stall" in sys.argv


def daemonise(_view: object) -> None:
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            print(f"DAEMON READY in session {os.getsid(0)}", file=sys.stderr, flush=True)
            time.sleep(3600)
        os._exit(0)
    os.waitpid(child, 0)
    if STALL:
        print("STALLING", file=sys.stderr, flush=True)
        time.sleep(600)


serve_misbehaving("daemon", daemonise)
