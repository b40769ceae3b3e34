"""Leave a daemonised grandchild that ignores SIGTERM (and keeps stdout open), then sleep."""
import os
import signal
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
        os._exit(0)
    os._exit(0)
print("READY", flush=True)
time.sleep(600)
sys.exit(0)
