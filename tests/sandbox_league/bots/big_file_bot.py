"""Row 6: on its 3rd decision it writes a 5 GiB file in its home directory, 1 MiB at a
time; when a write fails it prints ``SIZE <bytes reached>``, the traceback, and exits 1."""

import os
import sys
import traceback

from onthird import serve_misbehaving


def fill(_view: object) -> None:
    path = os.path.join(os.environ["HOME"], "big.bin")
    block = b"x" * (1024 * 1024)
    with open(path, "wb", buffering=0) as handle:
        try:
            for _ in range(5 * 1024):
                handle.write(block)
        except OSError:
            print(f"SIZE {os.path.getsize(path)}", file=sys.stderr, flush=True)
            traceback.print_exc()
            os._exit(1)
    print("WROTE 5 GiB", file=sys.stderr, flush=True)


serve_misbehaving("big-file", fill)
