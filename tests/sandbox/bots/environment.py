"""Print the names of its environment variables (one line, ``ENV a,b,c``), then sleep."""

import os
import time

print("ENV " + ",".join(sorted(os.environ)), flush=True)
time.sleep(600)
