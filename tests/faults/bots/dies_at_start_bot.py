"""Dies at every start, before serving (fault ``startup``; withdrawn after max_restarts).
``--after-s S``: only after S seconds (a bot whose imports take a while, then crash)."""

import sys
import time

if "--after-s" in sys.argv:
    time.sleep(float(sys.argv[sys.argv.index("--after-s") + 1]))
print("dies_at_start: giving up before serving", file=sys.stderr, flush=True)
sys.exit(7)
