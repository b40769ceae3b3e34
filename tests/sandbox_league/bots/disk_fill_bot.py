"""Issue 12, class 3: on its 3rd decision write files into its home, 4 MiB at a time, until
a write fails or 200 MiB are written, and report what it managed (``WROTE <bytes> <error>``)."""

import os

from onthird import serve_misbehaving

CAP = 200 * 1024 * 1024
BLOCK = b"x" * (4 * 1024 * 1024)


def fill(_view: object) -> None:
    home, written, error, index = os.environ["HOME"], 0, "none", 0
    try:
        while written < CAP:
            with open(os.path.join(home, f"fill-{index}"), "wb") as handle:
                for _ in range(2):
                    handle.write(BLOCK)
                    handle.flush()
                    written += len(BLOCK)
            index += 1
    except OSError as failure:
        error = failure.__class__.__name__ + ":" + str(failure.errno)
    raise RuntimeError(f"WROTE {written} {error}")


serve_misbehaving("disk_fill", fill)
