"""Fork until forking fails; every child sleeps. Report how many forks succeeded."""

import os
import time

count, error = 0, "none"
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError as exc:
        error = f"{type(exc).__name__}: {exc}"
        break
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    count += 1
print(f"FORKED {count} ERROR {error}", flush=True)
time.sleep(120)
