"""Open /dev/null 100 000 times; report how many opens succeeded."""

handles = []
try:
    for _ in range(100_000):
        handles.append(open("/dev/null", "rb"))
finally:
    print(f"OPENED {len(handles)}", flush=True)
