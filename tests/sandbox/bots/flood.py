"""Print 512 MiB to stdout and 512 MiB to stderr (1 GiB in all), then exit 0."""
import sys

block = b"y" * (1024 * 1024)
for stream in (sys.stdout.buffer, sys.stderr.buffer):
    for _ in range(512):
        stream.write(block)
    stream.flush()
