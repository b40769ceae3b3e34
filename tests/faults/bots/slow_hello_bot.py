"""Serves at once but answers its first Hello only after ``--delay-ms`` (default 4000):
what a loaded machine does to a bot that is already serving. Later Hellos are prompt,
unless ``--every`` is given."""

import sys
import threading
import time

from rawbot import RawBot, serve_raw


class SlowHello(RawBot):
    name = "slow-hello"
    delay_s = float(sys.argv[sys.argv.index("--delay-ms") + 1]) / 1000 if "--delay-ms" in sys.argv else 4.0
    first = threading.Lock()

    def Hello(self, request, context):  # noqa: N802
        if self.first.acquire(blocking=False) or "--every" in sys.argv:
            time.sleep(self.delay_s)
        return super().Hello(request, context)


serve_raw(SlowHello())
