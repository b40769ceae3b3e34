"""Row 4: on its 3rd decision it forks until forking fails (every child sleeps), says how
far it got on stderr (``FORKED <n> ERROR <exception>``), then kills its children and
plays on: the point is that the forks fail inside the bot."""

import os
import signal
import sys
import time

from onthird import serve_misbehaving


def bomb(_view: object) -> None:
    children, error = [], "none"
    for _ in range(5000):
        try:
            pid = os.fork()
        except OSError as exc:
            error = type(exc).__name__
            break
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        children.append(pid)
    print(f"FORKED {len(children)} ERROR {error}", file=sys.stderr, flush=True)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


serve_misbehaving("fork-bomb", bomb)
