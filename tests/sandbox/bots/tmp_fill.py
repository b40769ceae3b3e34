"""Fill $TMPDIR 1 MiB at a time; report the size reached and the error."""

import os

path = os.path.join(os.environ["TMPDIR"], "fill.bin")
block = b"z" * (1024 * 1024)
with open(path, "wb", buffering=0) as handle:
    try:
        while True:
            handle.write(block)
    except OSError as exc:
        print(f"SIZE {os.path.getsize(path)} ERROR {exc.strerror}", flush=True)
