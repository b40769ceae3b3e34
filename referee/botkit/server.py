"""Serve a :class:`~referee.botkit.bot.Bot` over gRPC (docs/design.md §4).

The referee starts the bot with ``KWHIST_LISTEN`` set (``unix:/path/bot.sock`` or
``host:port``); ``--listen ADDR`` on the command line overrides it. The kit answers both
``Decide`` and ``Play`` and says so in its Hello reply (``plays_streams``), so the referee
asks each seat's decisions over one ``Play`` stream per game (protocol 1.1); with
``--unary`` on the command line (or ``streams=False``) it offers only ``Decide``. An
exception in the bot's code does not stop the server: that one call (on a stream, that
stream) is answered with gRPC status INTERNAL naming the exception (the referee records a
``malformed`` fault) and the traceback goes to stderr.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

import grpc

import referee
from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
from referee.botkit.bot import Bot, GameSummary
from referee.botkit.decide import decide

ENV_LISTEN = "KWHIST_LISTEN"
UNARY_FLAG = "--unary"  # on the bot's command line: offer only unary Decide, no Play streams
MAX_DETAIL = 400  # characters of an exception message sent back to the referee

T = TypeVar("T")


def listen_address(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> str:
    """The address to serve on: ``--listen ADDR`` / ``--listen=ADDR`` in ``argv``, else
    ``$KWHIST_LISTEN``. Raises SystemExit(2) with a one-line message when neither is set."""
    args = list(sys.argv[1:] if argv is None else argv)
    for index, arg in enumerate(args):
        if arg == "--listen" and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith("--listen="):
            return arg.split("=", 1)[1]
    address = (os.environ if environ is None else environ).get(ENV_LISTEN, "").strip()
    if not address:
        raise SystemExit(f"no address to serve on: set {ENV_LISTEN}=unix:/path/bot.sock (or 127.0.0.1:50051), or pass --listen ADDR")
    return address


def offers_streams(argv: Sequence[str] | None = None) -> bool:
    """Whether to offer ``Play`` streams: not when ``argv`` (default ``sys.argv[1:]``) holds ``--unary``."""
    return UNARY_FLAG not in (sys.argv[1:] if argv is None else argv)


class _Servicer(pb_grpc.KnockoutWhistBotServicer):
    def __init__(self, bot: Bot, streams: bool) -> None:
        self._bot = bot
        self._streams = streams
        self._lock: AbstractContextManager[Any] = nullcontext() if bot.concurrent else threading.Lock()

    def _guarded(self, context: grpc.ServicerContext, call: Callable[[], T]) -> T:
        try:
            with self._lock:
                return call()
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            detail = f"bot raised {type(error).__name__}: {error}".replace("\n", " ")[:MAX_DETAIL]
            context.abort(grpc.StatusCode.INTERNAL, detail)
            raise  # not reached: abort raises

    def Hello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # noqa: N802 (gRPC name)
        major, minor = referee.PROTOCOL_VERSION
        return pb.HelloReply(
            protocol_major=major, protocol_minor=minor, name=self._bot.name, author=self._bot.author, plays_streams=self._streams
        )

    def Decide(self, request: pb.DecisionRequest, context: grpc.ServicerContext) -> pb.Action:  # noqa: N802
        return self._guarded(context, partial(decide, self._bot, request, time.monotonic()))

    def Play(self, requests: Iterator[pb.DecisionRequest], context: grpc.ServicerContext) -> Iterator[pb.Answer]:  # noqa: N802
        """One seat's decisions of one game, answered in turn, each echoing its number."""
        for request in requests:
            action = self._guarded(context, partial(decide, self._bot, request, time.monotonic()))
            yield pb.Answer(decision_number=request.decision_number, action=action)

    def GameOver(self, request: pb.GameSummary, context: grpc.ServicerContext) -> pb.Ack:  # noqa: N802
        summary = GameSummary(
            game_id=request.game_id,
            seat=request.seat,
            placements=tuple(request.placements),
            winner=request.winner if request.HasField("winner") else None,
            forfeited=tuple(request.forfeited),
            faults=tuple(request.faults),
        )
        self._guarded(context, lambda: self._bot.game_over(summary))
        return pb.Ack()


def start(bot: Bot, address: str, max_workers: int = 8, *, streams: bool = True) -> grpc.Server:
    """Start serving ``bot`` on ``address`` in background threads; return the server
    (stop it with ``server.stop(grace_s)``). ``streams``: offer ``Play`` streams in the
    Hello reply (else the referee asks by ``Decide`` alone). Raises SystemExit with a
    one-line message when the address cannot be bound."""
    server = grpc.server(ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="kwhist-bot"))
    pb_grpc.add_KnockoutWhistBotServicer_to_server(_Servicer(bot, streams), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as error:
        raise SystemExit(f"{bot.name}: cannot listen on {address}: {error}") from None
    if port == 0:
        raise SystemExit(f"{bot.name}: cannot listen on {address}")
    server.start()
    return server


def serve(bot: Bot, argv: Sequence[str] | None = None, max_workers: int = 8) -> None:
    """Serve ``bot`` on ``--listen ADDR`` or ``$KWHIST_LISTEN`` until SIGTERM or SIGINT;
    ``--unary`` in ``argv`` (default ``sys.argv[1:]``): offer no ``Play`` streams.

    ``max_workers`` threads answer calls (the referee sends one request at a time per
    seat, but games may interleave); each open ``Play`` stream holds one of them while its
    game lasts. Returns after a clean shutdown.
    """
    address = listen_address(argv)
    server = start(bot, address, max_workers, streams=offers_streams(argv))
    print(f"{bot.name}: serving on {address}", file=sys.stderr, flush=True)
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    finally:
        server.stop(grace=0.5).wait()
