"""The referee's gRPC client for one bot connection (docs/design.md §4, §5).

Each RPC is a blocking stub call. A game's decisions (``decide_blocking``) are made on
the thread that runs the game's match loop (``referee.league.gamethread``): no thread is
crossed per decision. Elsewhere (Hello, GameOver, check-bot) the same blocking call runs
on one of the client's own reusable threads (:mod:`referee.transport.callthreads`) and
is awaited in trio: no thread is started per call. The time of a decision is read on
the calling thread just before and after the call. Cancelling a waiting trio task
abandons its RPC: it ends at its deadline, or when the client is closed.

A bot whose HelloReply sets ``plays_streams`` is asked its decisions over one ``Play``
stream per seat per game (:mod:`referee.transport.stream`), any other by unary ``Decide``;
both give the same :class:`Reply`, judged the same way by the match (docs/design.md §5).
The stream rests on a gRPC layer below its public API, so it is imported on first use
(the first Hello of a bot that offers streams) and guarded: when that layer is missing or
has changed (an ImportError, AttributeError or TypeError from it, at that first check or
later), streams are off for the rest of the run, said once in one line, and every bot is
asked by ``Decide`` (:func:`streams_ready`, :mod:`referee.transport.streamguard`).

Faults of one decision are classified, not raised (:class:`Reply`); legality is left
to the match. The handshake raises :class:`~referee.transport.errors.HelloError`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import grpc
import trio

import referee
from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
from referee.transport import codec
from referee.transport.callthreads import CallThreads
from referee.transport.errors import HelloError, MalformedReply, ProtocolMismatch
from referee.transport.replies import DecisionAsk, HelloInfo, Reply, TransportFault
from referee.transport.streamguard import PRIVATE_LAYER_ERRORS, streams_off, turn_streams_off

if TYPE_CHECKING:
    from referee.transport.stream import PlayStream

__all__ = ["BotClient", "DecisionAsk", "HelloError", "HelloInfo", "ProtocolMismatch", "Reply", "TransportFault", "streams_off", "streams_ready"]

# Reconnect quickly while a just-started bot creates its socket (gRPC's default first
# back-off is 1 s); each client gets its own connection (no process-wide sharing), so a
# restarted bot is not reached through a stale, backed-off one.
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 500),
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.enable_retries", 0),
)

_CRASH_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})

DEADLINE_ANSWER = "DEADLINE_EXCEEDED: Deadline Exceeded"  # what a Play stream past its deadline came to (a Decide's words)
SOCKET_POLL_S = 0.002  # how often hello() looks for a just-started bot's socket file, s


_checked = threading.Lock()
_stream_checked = False


def streams_ready() -> bool:
    """Whether ``Play`` streams can be used in this run. The first call imports
    :mod:`referee.transport.stream` and runs its :func:`~referee.transport.stream.self_check`
    (a few ms, no bot involved); a missing or changed gRPC layer turns streams off
    (:func:`~referee.transport.streamguard.turn_streams_off`, one line). Thread-safe."""
    global _stream_checked
    with _checked:
        if not _stream_checked:
            _stream_checked = True
            try:
                from referee.transport.stream import self_check

                self_check()
            except PRIVATE_LAYER_ERRORS as error:
                turn_streams_off(error)
    return streams_off() is None


def _open_stream(stub: Any) -> PlayStream | None:
    """A new ``Play`` stream on ``stub``; None when streams are (or just turned) off.
    Raises ``ValueError`` when the channel is closed."""
    if streams_off() is not None:
        return None
    try:
        from referee.transport.stream import PlayStream

        return PlayStream(stub)
    except PRIVATE_LAYER_ERRORS as error:
        turn_streams_off(error)
        return None


def _unix_path(address: str) -> str | None:
    """The socket path of a ``unix:`` address (``unix:/p``, ``unix:///p``), else None."""
    if not address.startswith("unix:"):
        return None
    path = address[len("unix:") :]
    return path[2:] if path.startswith("///") else path


async def _wait_for_socket(path: str, timeout_s: float) -> float:
    """Sleep until the socket file ``path`` exists, at most ``timeout_s`` s; return the
    seconds waited. Dialling before a just-started bot has bound its socket costs a gRPC
    reconnect back-off: up to ~0.15 s after the bot listens, measured (``make bench``, B5)."""
    began = trio.current_time()
    with trio.move_on_after(timeout_s):
        while not os.path.exists(path):
            await trio.sleep(SOCKET_POLL_S)
    return trio.current_time() - began


def _status(error: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    call: Any = error
    code = call.code() if hasattr(call, "code") else grpc.StatusCode.UNKNOWN
    details = call.details() if hasattr(call, "details") else str(error)
    return code, (details or "").replace("\n", " ").strip()


def _timed_out(
    deadline_s: float | None, ms: float, request: object, render: Callable[[], str], answer: str = DEADLINE_ANSWER
) -> Reply:
    """The ``timeout`` of a decision not answered by its deadline (either path)."""
    limit = f"{deadline_s * 1000:.0f} ms" if deadline_s is not None else "the deadline"
    return Reply(None, "timeout", f"deadline of {limit} exceeded", request, answer, ms, render)


def _failed(error: grpc.RpcError, deadline_s: float | None, ms: float, request: object, render: Callable[[], str]) -> Reply:
    """The fault of a decision that ended in a gRPC error status (either path, docs/design.md §5):
    DEADLINE_EXCEEDED a ``timeout``, UNAVAILABLE or CANCELLED a ``crash``, any other ``malformed``."""
    code, details = _status(error)
    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
        return _timed_out(deadline_s, ms, request, render, f"{code.name}: {details}")
    fault: TransportFault = "crash" if code in _CRASH_CODES else "malformed"
    return Reply(None, fault, f"gRPC status {code.name}: {details}", request, f"{code.name}: {details}", ms, render)


class BotClient:
    """One gRPC channel to one bot process (or a bot given by address).

    ``address``: ``"unix:/abs/path.sock"`` or ``"host:port"``. ``name``: the bot's name in
    the league config, used in error messages. Calls may run concurrently.
    """

    def __init__(self, address: str, name: str) -> None:
        self.address = address
        self.name = name
        self._channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        self._stub = pb_grpc.KnockoutWhistBotStub(self._channel)
        self._decide = self._stub.Decide  # a game's blocking call (benchmark B2 times it)
        self._threads = CallThreads(name)
        self.plays_streams = False  # set by hello(): ask over Play streams instead of Decide
        self._streams: dict[tuple[str, int], PlayStream] = {}  # (game id, seat) -> its open stream
        self._streams_lock = threading.Lock()

    async def hello(self, timeout_s: float) -> HelloInfo:
        """Handshake (docs/design.md §4). Waits up to ``timeout_s`` seconds for the bot to
        listen (its socket may not exist yet) and answer.

        Raises :class:`ProtocolMismatch` (``kind == "protocol"``: the bot's major version
        differs from ``referee.PROTOCOL_VERSION[0]``, or it lacks the service), else
        :class:`HelloError` (``kind == "startup"``: unreachable, no reply in time, an error
        status). Both are ``referee.errors.BotError``.
        """
        major, minor = referee.PROTOCOL_VERSION
        request = pb.HelloRequest(protocol_major=major, protocol_minor=minor, referee_version=referee.__version__)
        who = f"bot {self.name} at {self.address}"
        left_s = timeout_s
        path = _unix_path(self.address)
        if path is not None:
            left_s = max(timeout_s - await _wait_for_socket(path, timeout_s), 0.001)
        done = await self._threads.run(partial(self._stub.Hello, request, timeout=left_s, wait_for_ready=True))
        try:
            if done.error is not None:
                raise done.error
            reply = done.value
            assert reply is not None
        except ValueError as error:  # closed channel
            raise HelloError(f"{who}: {error}") from None
        except grpc.RpcError as error:
            code, details = _status(error)
            if code is grpc.StatusCode.DEADLINE_EXCEEDED:
                raise HelloError(
                    f"{who}: no Hello reply within {timeout_s:g} s: does it start, and serve on $KWHIST_LISTEN?",
                    f"{code.name}: {details}",
                ) from None
            if code is grpc.StatusCode.UNIMPLEMENTED:
                raise ProtocolMismatch(
                    f"{who} does not implement knockout_whist.v1.KnockoutWhistBot/Hello: build it from protos/knockout_whist/v1/bot.proto",
                    f"{code.name}: {details}",
                ) from None
            raise HelloError(f"{who}: Hello failed with gRPC status {code.name}: {details}", f"{code.name}: {details}") from None
        if reply.protocol_major == 0:
            raise ProtocolMismatch(
                f"{who} answered Hello without protocol_major (an unset field reads 0): set protocol_major = {major} "
                f"and protocol_minor = {minor} in its HelloReply (docs/protocol.md)",
                codec.message_json(reply),
            )
        if reply.protocol_major != major:
            raise ProtocolMismatch(
                f"{who} speaks protocol {reply.protocol_major}.{reply.protocol_minor}, the referee {major}.{minor}: "
                f"rebuild the bot from this referee's protos/ (major versions must match)",
                codec.message_json(reply),
            )
        self.plays_streams = reply.plays_streams and streams_ready()
        return HelloInfo(
            name=reply.name, author=reply.author, major=reply.protocol_major, minor=reply.protocol_minor, streams=self.plays_streams
        )

    def decide_blocking(self, ask: DecisionAsk) -> Reply:
        """Ask the bot for ``ask.view``'s decision (docs/design.md §4) and classify the
        outcome (§5), blocking the calling thread for up to ``ask.deadline_s`` seconds (the
        match's worker thread: a game makes its calls without crossing threads).

        ``Reply.ms`` is read on this thread just before and after the call. Never raises
        for a bot's fault; legality is not checked here (the match does it).
        """
        request = codec.view_to_request(ask.view, ask.events, ask.number, ask.time_left_ms, ask.bank_left_ms, ask.last_decision_ms)
        render = partial(codec.request_json, request)  # evidence, rendered only when needed
        if self.plays_streams:
            reply = self._play(ask, request, render)
            if reply is not None:
                return reply
        started = time.monotonic()
        try:
            msg = self._decide(request, timeout=ask.deadline_s)
        except ValueError as error:  # closed channel
            return Reply(None, "crash", f"cannot send: {error}", request, "", 0.0, render)
        except grpc.RpcError as error:
            return _failed(error, ask.deadline_s, (time.monotonic() - started) * 1000.0, request, render)
        ms = (time.monotonic() - started) * 1000.0
        try:
            action = codec.proto_to_action(msg, ask.view)
        except MalformedReply as error:
            return Reply(None, "malformed", str(error), request, codec.message_json(msg), ms, render)
        return Reply(action, None, "", request, str(action), ms, render)

    def _play(self, ask: DecisionAsk, request: pb.DecisionRequest, render: Callable[[], str]) -> Reply | None:
        """:meth:`decide_blocking` over the seat's ``Play`` stream, opened on its first
        decision and again after any fault on it (docs/protocol.md): the same faults, the
        same evidence as a unary ``Decide``. None when streams turned off (the gRPC layer
        below the public API changed) before the request was sent: the caller asks by
        ``Decide``."""
        view = ask.view
        key = (view.game_id, view.seat)
        with self._streams_lock:
            stream = self._streams.get(key)
            if stream is None or stream.broken:
                try:
                    opened = _open_stream(self._stub)
                except ValueError as error:  # closed channel
                    return Reply(None, "crash", f"cannot send: {error}", request, "", 0.0, render)
                if opened is None:
                    self.plays_streams = False
                    return None
                stream = self._streams[key] = opened
        try:
            heard = stream.ask(request, ask.deadline_s)
        except PRIVATE_LAYER_ERRORS as error:  # a changed layer fails at a run's first ask: asked again by Decide
            turn_streams_off(error)
            self.plays_streams = False
            with self._streams_lock:
                self._streams.pop(key, None)
            return None
        ms = (heard.ended_at - heard.started) * 1000.0
        if heard.early and heard.answer is not None:
            detail = (
                f"its Play stream sent an Answer (decision_number {heard.answer.decision_number}) before decision "
                f"{request.decision_number} was asked: an answer must follow its request"
            )
            return Reply(None, "malformed", detail, request, codec.message_json(heard.answer), ms, render)
        if heard.expired:
            return _timed_out(ask.deadline_s, ms, request, render)
        if heard.error is not None:
            reply = _failed(heard.error, ask.deadline_s, ms, request, render)
            if _status(heard.error)[0] is grpc.StatusCode.UNIMPLEMENTED:
                reply = replace(reply, detail=f"{reply.detail}; its HelloReply sets plays_streams: implement Play, or leave plays_streams false")
            return reply
        if heard.answer is None:
            detail = f"the bot ended its Play stream without answering decision {request.decision_number}"
            return Reply(None, "malformed", detail, request, "OK: the Play stream ended", ms, render)
        answer = heard.answer
        if answer.decision_number != request.decision_number:
            stream.abandon()
            detail = f"its Answer on the Play stream names decision_number {answer.decision_number}; decision {request.decision_number} was asked"
            return Reply(None, "malformed", detail, request, codec.message_json(answer), ms, render)
        try:
            action = codec.proto_to_action(answer.action, view)
        except MalformedReply as error:
            stream.abandon()
            return Reply(None, "malformed", str(error), request, codec.message_json(answer.action), ms, render)
        return Reply(action, None, "", request, str(action), ms, render)

    def end_play(self, game_id: str, seat: int) -> None:
        """End the ``Play`` stream of ``seat`` in ``game_id``, if one is open (the game is
        over). Never blocks, never raises."""
        with self._streams_lock:
            stream = self._streams.pop((game_id, seat), None)
        if stream is not None:
            stream.close()

    def end_plays(self) -> None:
        """End every open ``Play`` stream of this client (its process is done with its games)."""
        with self._streams_lock:
            streams, self._streams = list(self._streams.values()), {}
        for stream in streams:
            stream.close()

    async def decide(self, ask: DecisionAsk) -> Reply:
        """:meth:`decide_blocking` on one of the client's call threads, awaited in trio
        (check-bot, tests). Cancelling the waiting task abandons the call."""
        done = await self._threads.run(partial(self.decide_blocking, ask))
        if done.error is not None:
            raise done.error
        assert done.value is not None
        return done.value

    def game_over_blocking(
        self,
        game_id: str,
        seat: int,
        placements: Sequence[int],
        winner: int | None,
        timeout_s: float,
        forfeited: Sequence[bool] = (),
        faults: Sequence[int] = (),
    ) -> str | None:
        """Tell the bot the public result of a game (docs/design.md §4), blocking up to
        ``timeout_s`` seconds: placements, winner, and per seat whether it forfeited and
        its faults in this game. Returns None when it was delivered or the bot leaves
        GameOver UNIMPLEMENTED (not a fault), else a one-line detail of the failure (never
        raises; not a fault either). The seat's ``Play`` stream in that game, if one is
        open, is ended first (:meth:`end_play`)."""
        self.end_play(game_id, seat)
        summary = pb.GameSummary(
            game_id=game_id, seat=seat, placements=placements, winner=winner, forfeited=forfeited, faults=faults
        )
        try:
            self._stub.GameOver(summary, timeout=timeout_s)
        except ValueError as error:  # closed channel
            return f"GameOver not sent: {error}"
        except grpc.RpcError as error:
            code, details = _status(error)
            if code is grpc.StatusCode.UNIMPLEMENTED:
                return None
            return f"GameOver failed with gRPC status {code.name}: {details}"
        return None

    async def game_over(
        self,
        game_id: str,
        seat: int,
        placements: Sequence[int],
        winner: int | None,
        timeout_s: float,
        forfeited: Sequence[bool] = (),
        faults: Sequence[int] = (),
    ) -> str | None:
        """:meth:`game_over_blocking` on one of the client's call threads, awaited in trio."""
        done = await self._threads.run(
            partial(self.game_over_blocking, game_id, seat, placements, winner, timeout_s, forfeited, faults)
        )
        if done.error is not None:
            raise done.error
        return done.value

    def close(self) -> None:
        """Close the channel; calls in flight end as ``crash``. Idempotent."""
        self.end_plays()
        self._channel.close()
        self._threads.close()
