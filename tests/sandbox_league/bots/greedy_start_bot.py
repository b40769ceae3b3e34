"""Allocates 1 GiB before it serves (a model loaded at start, too big for the default
memory limit of 512 MiB): MemoryError, the traceback on stderr, exit code 1."""

data = bytearray(1 << 30)
print("ALLOCATED", len(data), flush=True)
