"""B1 floor: one unary ``Decide`` round trip with a realistic request to a trivial
Python bot over a Unix socket (sync, blocking stub), to one bot and rotating over 4 bot
processes, next to a raw Unix-socket ping-pong of the same bytes.

Also, for diagnosis, rotating over the same 4 bots: the referee's own call as a game
makes it (``BotClient.decide_blocking`` on the calling thread: the request built from the
view, the blocking call, the reply decoded and classified), and the same awaited from
trio (``BotClient.decide``: handed to a call thread and the waiting task woken, the path
every decision took before games ran on their own threads). Figures: µs per round trip
(mean over the calls of a repetition).
"""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import time

import common
from common import Figure

CALLS = 2000
WARMUP = 200


def _sync_variant(stubs: list, request: object, calls: int, timeout_s: float) -> float:
    count = len(stubs)
    began = time.perf_counter()
    for index in range(calls):
        stubs[index % count].Decide(request, timeout=timeout_s)
    return (time.perf_counter() - began) / calls * 1e6


def _blocking_variant(clients: list, view: object, events: list, calls: int) -> float:
    from referee.transport.replies import DecisionAsk

    count = len(clients)
    began = time.perf_counter()
    for index in range(calls):
        reply = clients[index % count].decide_blocking(DecisionAsk(view, events, 9, 1000, 0, 1.1))
        assert reply.fault is None, reply.detail
    return (time.perf_counter() - began) / calls * 1e6


def _raw_variant(sockets: list[socket.socket], framed: bytes, reply_size: int, calls: int) -> float:
    count = len(sockets)
    began = time.perf_counter()
    for index in range(calls):
        conn = sockets[index % count]
        conn.sendall(framed)
        need = reply_size
        while need:
            need -= len(conn.recv(need))
    return (time.perf_counter() - began) / calls * 1e6


def _trio_variant(clients: list, view: object, events: list, calls: int) -> float:
    import trio

    from referee.transport.replies import DecisionAsk

    async def loop() -> float:
        count = len(clients)
        began = time.perf_counter()
        for index in range(calls):
            reply = await clients[index % count].decide(DecisionAsk(view, events, 9, 1000, 0, 1.1))
            assert reply.fault is None, reply.detail
        return (time.perf_counter() - began) / calls * 1e6

    return trio.run(loop)


def _process_cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes ``pids`` have spent, from /proc (ticks of
    1/100 s); 0 for a process that is gone."""
    total = 0.0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / 100
    return total


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    calls = 300 if args.quick else CALLS

    import grpc
    import trio

    from fixtures import instant_bots, realistic_decision, realistic_request
    from referee._proto.knockout_whist.v1 import bot_pb2 as pb
    from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
    from referee.transport.client import CHANNEL_OPTIONS, BotClient

    request = realistic_request()
    payload = request.SerializeToString()
    view, events, _ = realistic_decision()
    with common.temp_dir("kws-b1-") as tmp:
        with instant_bots(4, tmp / "run", args.sandbox) as bots:
            channels = [grpc.insecure_channel(bot.address, options=CHANNEL_OPTIONS) for bot in bots]
            stubs = [pb_grpc.KnockoutWhistBotStub(channel) for channel in channels]
            for stub in stubs:
                stub.Hello(pb.HelloRequest(protocol_major=1), timeout=30, wait_for_ready=True)
            reply_bytes = stubs[0].Decide(request, timeout=5).SerializeToString()
            clients = [BotClient(bot.address, bot.name) for bot in bots]

            async def hello_all() -> None:
                for client in clients:
                    await client.hello(30)

            trio.run(hello_all)
            echoes, sockets = [], []
            for index in range(4):
                path = tmp / f"raw{index}.sock"
                echo = subprocess.Popen(
                    [sys.executable, str(common.RAW_ECHO), str(path), reply_bytes.hex()],
                    stdout=subprocess.PIPE, text=True,
                )
                assert echo.stdout is not None and echo.stdout.readline().strip() == "ready"
                echoes.append(echo)
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                conn.connect(str(path))
                sockets.append(conn)
            framed = struct.pack(">I", len(payload)) + payload
            reply_size = 4 + len(reply_bytes)
            variants = {
                "grpc_single": lambda n: _sync_variant(stubs[:1], request, n, 1.1),
                "grpc_rotating": lambda n: _sync_variant(stubs, request, n, 1.1),
                "raw_single": lambda n: _raw_variant(sockets[:1], framed, reply_size, n),
                "raw_rotating": lambda n: _raw_variant(sockets, framed, reply_size, n),
                "blocking_rotating": lambda n: _blocking_variant(clients, view, events, n),
                "client_rotating": lambda n: _trio_variant(clients, view, events, n),
            }
            for run in variants.values():
                run(WARMUP)
            results: dict[str, list[float]] = {key: [] for key in variants}
            cpu: dict[str, list[float]] = {key: [] for key in variants}  # this process's CPU per call, µs
            bot_cpu: list[float] = []  # the bots' CPU per call of the sync rotating variant, µs
            pids = [bot.pid for bot in bots]
            try:
                for _ in range(args.reps):
                    for key, run in variants.items():
                        spent, bots_spent = time.process_time(), _process_cpu_s(pids)
                        results[key].append(run(calls))
                        cpu[key].append((time.process_time() - spent) / calls * 1e6)
                        if key == "grpc_rotating":
                            bot_cpu.append((_process_cpu_s(pids) - bots_spent) / calls * 1e6)
            finally:
                for conn in sockets:
                    conn.close()
                for echo in echoes:
                    echo.kill()
                    echo.wait()
                for client in clients:
                    client.close()
                for channel in channels:
                    channel.close()
    figures = [
        Figure("grpc_single", "gRPC unary Decide, sync, 1 bot", "µs", results["grpc_single"]),
        Figure("grpc_rotating", "gRPC unary Decide, sync, rotating over 4 bots (the floor)", "µs", results["grpc_rotating"]),
        Figure("raw_single", "raw Unix-socket ping-pong, same bytes, 1 server", "µs", results["raw_single"]),
        Figure("raw_rotating", "raw Unix-socket ping-pong, same bytes, rotating over 4", "µs", results["raw_rotating"]),
        Figure("blocking_rotating", "referee BotClient.decide_blocking (a game's call), rotating over 4", "µs", results["blocking_rotating"]),
        Figure("client_rotating", "BotClient.decide awaited in trio (via a call thread), rotating over 4", "µs", results["client_rotating"]),
        Figure("grpc_cpu", "client-side CPU per call: sync gRPC, rotating", "µs", cpu["grpc_rotating"]),
        Figure("bot_cpu", "bot-side CPU per call: sync gRPC, rotating (instant bot)", "µs", bot_cpu),
        Figure("raw_cpu", "client-side CPU per call: raw socket, rotating", "µs", cpu["raw_rotating"]),
        Figure("blocking_cpu", "client-side CPU per call: BotClient.decide_blocking", "µs", cpu["blocking_rotating"]),
        Figure("client_cpu", "client-side CPU per call: BotClient.decide in trio (all threads)", "µs", cpu["client_rotating"]),
        Figure("grpc_over_raw", "gRPC rotating ÷ raw rotating", "×", common.ratio_values(results["grpc_rotating"], results["raw_rotating"])),
        Figure("client_work", "request, decoding, Reply: decide_blocking − sync rotating", "µs", [a - b for a, b in zip(results["blocking_rotating"], results["grpc_rotating"], strict=True)]),
        Figure("trio_cost", "trio + call thread: decide in trio − decide_blocking", "µs", [a - b for a, b in zip(results["client_rotating"], results["blocking_rotating"], strict=True)]),
        Figure("blocking_over_grpc", "decide_blocking ÷ sync gRPC rotating", "×", common.ratio_values(results["blocking_rotating"], results["grpc_rotating"])),
    ]
    common.write_json(
        args.json, "B1 floor", figures,
        request_bytes=len(payload), reply_bytes=len(reply_bytes), calls=calls, sandbox=args.sandbox,
    )


if __name__ == "__main__":
    main()
