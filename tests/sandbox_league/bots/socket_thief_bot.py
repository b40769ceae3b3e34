"""Issue 12, class 1: make the referee dial another bot's socket for this bot's seat.

It reads the host path of its home from ``/proc/self/mountinfo`` (``<run_dir>/bad-N``).
Its first process (N = 1) plays and crashes on its 3rd decision, so that it is restarted
while the other bot's process (``random-2``) is alive; a later one replaces its own socket
path with a symbolic link to ``<run_dir>/random-<N-1>/bot.sock`` and sleeps: any answer for
its seat then comes from the other bot. Where it finds no host path of its home it links to
a path outside the sandbox anyway."""

import os
import re
import sys
import time

from onthird import serve_misbehaving

listen = os.environ["KWHIST_LISTEN"].removeprefix("unix:")
home = os.path.dirname(listen)
host = None
with open("/proc/self/mountinfo") as handle:
    for line in handle:
        fields = line.split()
        if fields[4] == home and fields[3] != "/":
            host = fields[3]
match = re.search(r"^(.*)/bad-(\d+)$", host or "")
if match and int(match.group(2)) == 1:
    serve_misbehaving("socket_thief", lambda _view: os._exit(3))
target = f"{match.group(1)}/random-{int(match.group(2)) - 1}/bot.sock" if match else "/run/kwhist-nowhere/bot.sock"
os.symlink(target, listen)
print(f"socket_thief: {listen} -> {target}", file=sys.stderr, flush=True)
time.sleep(3600)
