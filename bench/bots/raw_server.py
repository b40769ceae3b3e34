"""Serve a plain generated-stub servicer on ``KWHIST_LISTEN`` (or argv[1]) until SIGTERM
or SIGINT: the shared main loop of the benchmark bots, which bypass the bot kit."""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc


def serve(servicer: Any, name: str) -> None:
    """Raises SystemExit naming ``name`` when no address is given or it cannot be bound."""
    arguments = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    address = os.environ.get("KWHIST_LISTEN") or (arguments[0] if arguments else "")
    if not address:
        raise SystemExit(f"{name}: set KWHIST_LISTEN=unix:/path/bot.sock")
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_KnockoutWhistBotServicer_to_server(servicer, server)
    if server.add_insecure_port(address) == 0:
        raise SystemExit(f"{name}: cannot listen on {address}")
    server.start()
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    while not stop.wait(1.0):
        pass
    server.stop(grace=0.2).wait()
