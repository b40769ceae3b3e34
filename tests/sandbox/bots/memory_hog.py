"""Allocate up to 10 GiB, 64 MiB at a time (touching every page)."""
chunks = []
for _ in range(160):
    chunks.append(bytearray(64 * 1024 * 1024))
print("ALLOCATED 10 GiB", flush=True)
