"""Write a 5 GiB file in $HOME, 1 MiB at a time; on failure report the size reached."""

import os

path = os.path.join(os.environ["HOME"], "big.bin")
block = b"x" * (1024 * 1024)
with open(path, "wb", buffering=0) as handle:
    try:
        for _ in range(5 * 1024):
            handle.write(block)
    finally:
        print(f"SIZE {os.path.getsize(path)}", flush=True)
