"""Say READY, then sleep."""

import time

print("READY", flush=True)
time.sleep(600)
