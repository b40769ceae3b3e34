"""A thread bomb: on its 3rd decision it starts threads (each sleeps an hour) until no more
can start, and goes on trying for 6 s, keeping every one (``THREADS <n>`` on stderr): a
``timeout`` fault of its own. What must not happen is the other bots of its league being
left unable to start a thread of theirs."""

import sys
import threading
import time

from onthird import serve_misbehaving


def bomb(_view: object) -> None:
    started = 0
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        try:
            threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
            started += 1
        except RuntimeError:
            time.sleep(0.05)
    print(f"THREADS {started}", file=sys.stderr, flush=True)


serve_misbehaving("thread-bomb", bomb)
