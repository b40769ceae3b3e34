"""Row 1: writes a line to stderr and then never creates its socket (fault ``startup``)."""

import sys
import time

print("no_socket: loading an opening book that never ends", file=sys.stderr, flush=True)
time.sleep(3600)
