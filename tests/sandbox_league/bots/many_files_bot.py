"""Row 7: on its 3rd decision it opens /dev/null 100 000 times; when an open fails it
prints ``OPENED <n>``, the traceback, and exits 1."""

import os
import sys
import traceback

from onthird import serve_misbehaving


def hoard(_view: object) -> None:
    handles = []
    try:
        for _ in range(100_000):
            handles.append(open("/dev/null", "rb"))
    except OSError:
        print(f"OPENED {len(handles)}", file=sys.stderr, flush=True)
        traceback.print_exc()
        os._exit(1)
    print("OPENED 100000", file=sys.stderr, flush=True)


serve_misbehaving("many-files", hoard)
