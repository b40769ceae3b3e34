"""Row 4: on its 3rd decision it forks until forking fails (every child sleeps on), says
how far it got on stderr (``FORKED <n> ERROR <exception>``), and plays on."""

import os
import sys
import time

from onthird import serve_misbehaving


def bomb(_view: object) -> None:
    count, error = 0, "none"
    for _ in range(5000):
        try:
            pid = os.fork()
        except OSError as exc:
            error = type(exc).__name__
            break
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        count += 1
    print(f"FORKED {count} ERROR {error}", file=sys.stderr, flush=True)


serve_misbehaving("fork-bomb", bomb)
