"""Serve a :class:`~referee.botkit.bot.Bot` over gRPC (docs/design.md §4).

The referee starts the bot with ``KWHIST_LISTEN`` set (``unix:/path/bot.sock`` or
``host:port``); ``--listen ADDR`` on the command line overrides it. The kit answers both
``Decide`` and ``Play`` and says so in its Hello reply (``plays_streams``), so the referee
asks each seat's decisions over one ``Play`` stream per game (protocol 1.1); with
``--unary`` on the command line (or ``streams=False``) it offers only ``Decide``. An
exception in the bot's code does not stop the server: that one call (on a stream, that
stream) is answered with gRPC status INTERNAL naming the exception (the referee records a
``malformed`` fault) and the traceback goes to stderr.

Start-up: this module imports only what serving needs (grpc, the generated stubs, the
:class:`Bot` base). The decoding of requests (:mod:`referee.botkit.decide`: the codec and
the game's types, ~20-40 ms of imports) is loaded by a background thread as soon as the
server listens, while the referee connects and says Hello; a decision that comes before it
is done waits for it.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType
from typing import Any, TypeVar

import grpc

import referee
from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
from referee.botkit.bot import Bot, GameSummary

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


DECIDE_MODULE = "referee.botkit.decide"
WARM_UP_SWITCH_S = 0.0005  # the GIL switch interval while loading in the background (s)


_decide_module: ModuleType | None = None


def _decider() -> ModuleType:
    """:mod:`referee.botkit.decide`, imported on first use; while the background thread is
    still importing it, this waits for that import to finish (the module's import lock)."""
    global _decide_module
    if _decide_module is None:
        _decide_module = importlib.import_module(DECIDE_MODULE)
    return _decide_module


def _load_in_background() -> None:
    """Import the decoding part of the kit on a daemon thread. The GIL switch interval is
    lowered meanwhile so that the serving threads (Hello) are not held up by it; an error
    is left for the first decision to report."""

    def load() -> None:
        previous = sys.getswitchinterval()
        sys.setswitchinterval(min(previous, WARM_UP_SWITCH_S))
        try:
            _decider()
        except Exception:
            pass  # the first Decide imports it again and answers INTERNAL with the error
        finally:
            sys.setswitchinterval(previous)

    if _decide_module is None:
        threading.Thread(target=load, name="kwhist-bot-load", daemon=True).start()


def _decide_one(bot: Bot, request: pb.DecisionRequest) -> pb.Action:
    return _decider().decide(bot, request)


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
        return self._guarded(context, lambda: _decider().decide(self._bot, request))

    def Play(self, requests: Iterator[pb.DecisionRequest], context: grpc.ServicerContext) -> Iterator[pb.Answer]:  # noqa: N802
        """One seat's decisions of one game, answered in turn, each echoing its number."""
        for request in requests:
            action = self._guarded(context, partial(_decide_one, self._bot, request))
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
    one-line message when the address cannot be bound. Starts loading the decoding part of
    the kit in the background (see the module docstring)."""
    server = grpc.server(ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="kwhist-bot"))
    pb_grpc.add_KnockoutWhistBotServicer_to_server(_Servicer(bot, streams), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as error:
        raise SystemExit(f"{bot.name}: cannot listen on {address}: {error}") from None
    if port == 0:
        raise SystemExit(f"{bot.name}: cannot listen on {address}")
    server.start()
    _load_in_background()
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
