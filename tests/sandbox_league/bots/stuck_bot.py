"""Rows 2 and 3: on its 3rd decision it never answers: ``busy`` spins the CPU forever,
``sleep`` sleeps forever (argv[1]). Being a one-call-at-a-time bot, it answers nothing after."""

import sys
import time

from onthird import serve_misbehaving

HOW = sys.argv[1]


def stuck(_view: object) -> None:
    if HOW == "busy":
        while True:
            pass
    while True:
        time.sleep(3600)


serve_misbehaving(f"stuck-{HOW}", stuck)
