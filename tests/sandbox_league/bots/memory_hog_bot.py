"""Row 5: on its 3rd decision it allocates 10 GiB, 64 MiB at a time, touching every page.
The kernel kills it at the memory limit; where it gets MemoryError instead (RLIMIT_DATA) it
prints the traceback and exits 1, as a bot whose main loop died would."""

import os
import traceback

from onthird import serve_misbehaving


def hog(_view: object) -> None:
    chunks = []
    try:
        for _ in range(160):
            chunks.append(bytearray(64 * 1024 * 1024))
    except MemoryError:
        traceback.print_exc()
        os._exit(1)
    print("ALLOCATED 10 GiB", flush=True)


serve_misbehaving("memory-hog", hog)
