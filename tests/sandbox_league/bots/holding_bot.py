"""Holds the first ask of every odd decision ``HOLD_S`` seconds (argv[2]) past any limit
of the test that runs it, and answers any later ask of the same decision at once: a bot
that would earn an excuse if one could be earned (docs/design.md §5). ``sleep`` (argv[1])
sleeps through the hold; ``burn`` forks 6 processes that spin through it and reaps them.
Asked by unary ``Decide`` only; each decision in a thread of its own."""

from __future__ import annotations

import os

os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"  # plain fork(): no gRPC threads in the children

import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import grpc  # noqa: E402

from referee._proto.knockout_whist.v1 import bot_pb2 as pb  # noqa: E402
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc  # noqa: E402

HOW, HOLD_S = sys.argv[1], float(sys.argv[2])
SPINNERS = 6


def burn(until: float) -> None:
    children = []
    for _ in range(SPINNERS):
        pid = os.fork()
        if pid == 0:
            while time.monotonic() < until:
                pass
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


class Holder(pb_grpc.KnockoutWhistBotServicer):
    def __init__(self) -> None:
        self.asked: set[tuple[str, int]] = set()
        self.lock = threading.Lock()

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802
        return pb.HelloReply(protocol_major=1, protocol_minor=0, name=f"holder-{HOW}", author="tests")

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        key = (request.game_id, request.decision_number)
        with self.lock:
            first = key not in self.asked
            self.asked.add(key)
        if first and request.decision_number % 2 == 1:
            print(f"HOLD {request.game_id} {request.decision_number}", file=sys.stderr, flush=True)
            if HOW == "burn":
                burn(time.monotonic() + HOLD_S)
            else:
                time.sleep(HOLD_S)
        return request.legal[0]


server = grpc.server(ThreadPoolExecutor(max_workers=8))
pb_grpc.add_KnockoutWhistBotServicer_to_server(Holder(), server)
server.add_insecure_port(os.environ["KWHIST_LISTEN"])
server.start()
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
