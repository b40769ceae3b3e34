"""Dies at every start, before serving (fault ``startup``; withdrawn after max_restarts)."""

import sys

print("dies_at_start: giving up before serving", file=sys.stderr, flush=True)
sys.exit(7)
