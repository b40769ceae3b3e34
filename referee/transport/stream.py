"""One seat's ``Play`` stream: the decisions of one seat of one game on one bidirectional
gRPC stream, for a bot whose HelloReply sets ``plays_streams`` (docs/design.md §4, §5).

The stream is driven by the thread that asks, the game's own thread, the way gRPC's own
blocking calls are: each stream is a gRPC *segregated call* with a completion queue of its
own; an ask hands one batch (send the request, receive one answer) to gRPC's core and
waits on that queue in the asking thread. No Python thread is crossed per decision.
gRPC's public sync stream API instead reads requests on a thread of its own per stream and
delivers answers from its polling thread: three threads per decision, about twice the
referee's CPU per decision (docs/design.md §4, ``make bench`` B4T).

A stream has no deadline per message, so one process-wide thread (:class:`_Deadlines`)
cancels a stream whose awaited answer is overdue; the asking thread then sees the
cancellation as ``expired``. It sleeps until the earliest deadline still awaited and is
not woken per decision. A stream that timed out, failed or answered out of turn is ended,
and the seat's next decision opens a new one: an answer late for one decision is never
read as the answer to the next.

**An answer never comes before its request.** Between two decisions a receive is always
outstanding on the stream (posted when the stream opens and after each answer), so gRPC
takes whatever the bot sends meanwhile. Before a request is sent, the asker posts an empty
batch, which gRPC completes at once: an answer whose receive completed before that marker
was taken before the request was sent (``early``), and the bot cannot have seen the
request it claims to answer, whatever its decision number; it is a fault
(docs/protocol.md). An answer that arrives while the request is being sent cannot be told
from a quick one and is judged as an answer.

Every stream's events are read to its end (its status), by the asker or, once closed or
abandoned, by one process-wide reaper thread (:class:`_Reaper`): gRPC frees a call only
then, and closing a channel waits for it.

This module is imported on first use only (:mod:`referee.transport.client`): what it uses
below gRPC's public API may be missing or changed in another grpcio release, and then the
run goes on with unary ``Decide`` (:mod:`referee.transport.streamguard`).
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from grpc import _common  # the status codes of gRPC's core, as grpc's own calls map them
from grpc._cython import cygrpc  # type: ignore[attr-defined]  # the segregated call below gRPC's sync API (see the module doc)

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
from referee.transport.streamguard import PRIVATE_LAYER_ERRORS, turn_streams_off

_FLAGS = 0
_START, _META, _ASK, _NEXT, _MARK, _CLOSE = "start", "meta", "ask", "next", "mark", "close"  # the tags of a stream's batches
CLOSE_WAIT_S = 1.0  # how long a closed stream waits for the bot to end its side before it is cancelled, s
PRUNE_AT = 64  # disarmed deadlines kept in the heap before it is rebuilt without them (when they are also half of it)


class StreamError(grpc.RpcError):
    """The gRPC status a stream ended with, read like a unary call's error (``code()``,
    ``details()``)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code = code
        self._details = details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


@dataclass(frozen=True)
class Heard:
    """What one ask on a stream came to: the ``answer`` (None when none came), else
    ``error`` (the status the stream ended with, not OK), ``ended`` (the bot ended the
    stream with status OK before answering) or ``expired`` (the deadline passed: the
    referee cancelled the stream). ``early``: the ``answer`` was taken before the request
    was sent (which was then not sent; the stream is abandoned). ``started`` and
    ``ended_at``: ``time.monotonic()`` s read on the asking thread just before the request
    was handed to gRPC and just after."""

    answer: pb.Answer | None
    error: grpc.RpcError | None
    ended: bool
    expired: bool
    started: float
    ended_at: float
    early: bool = False


class _Deadline:
    """One armed deadline: ``state`` is ``armed``, ``off`` (disarmed) or ``fired``."""

    __slots__ = ("stream", "state")

    def __init__(self, stream: PlayStream) -> None:
        self.stream = stream
        self.state = "armed"


class _Deadlines:
    """One daemon thread that cancels the streams whose awaited answer is overdue.

    :meth:`arm` and :meth:`disarm` cost a heap push and a flag; the thread is woken only
    when a deadline earlier than the one it sleeps to is armed, so about once per deadline
    period, not per decision. Disarmed entries are dropped when they reach the heap's top,
    and the heap is rebuilt without them once they are more than :data:`PRUNE_AT` and half
    of it (as trio prunes its own deadlines), so it holds about the armed ones only.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, _Deadline]] = []  # (due, monotonic s; order; the deadline)
        self._order = itertools.count()
        self._sleep_until: float | None = None  # what the thread waits for; None: no deadline
        self._stale = 0  # disarmed entries still in the heap
        self._thread: threading.Thread | None = None

    def arm(self, due: float, stream: PlayStream) -> _Deadline:
        """Cancel ``stream`` at ``due`` (monotonic s) unless disarmed first."""
        deadline = _Deadline(stream)
        with self._cond:
            heapq.heappush(self._heap, (due, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="kwhist-play-deadlines", daemon=True)
                self._thread.start()
            elif self._sleep_until is None or due < self._sleep_until:
                self._cond.notify()
        return deadline

    def disarm(self, deadline: _Deadline) -> bool:
        """Forget ``deadline``; True when it had already fired (its stream is cancelled)."""
        with self._cond:
            fired = deadline.state == "fired"
            if deadline.state == "armed":
                self._stale += 1
                if self._stale > PRUNE_AT and 2 * self._stale > len(self._heap):
                    self._heap = [entry for entry in self._heap if entry[2] is not deadline and entry[2].state == "armed"]
                    heapq.heapify(self._heap)
                    self._stale = 0
            deadline.state = "off"
            return fired

    @property
    def pending(self) -> int:
        """Entries in the heap, armed or not yet pruned (tests)."""
        with self._cond:
            return len(self._heap)

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][2].state != "armed":
                    heapq.heappop(self._heap)
                    self._stale -= 1
                if not self._heap:
                    self._sleep_until = None
                    self._cond.wait()
                    continue
                due, _, deadline = self._heap[0]
                now = time.monotonic()
                if now < due:
                    self._sleep_until = due
                    self._cond.wait(due - now)
                    continue
                heapq.heappop(self._heap)
                deadline.state = "fired"
                try:
                    deadline.stream._expire()
                except PRIVATE_LAYER_ERRORS as error:  # the layer changed: no stream is opened after this
                    turn_streams_off(error)


class _Reaper:
    """One daemon thread that reads closed and abandoned streams to their end, one after
    another (a healthy bot ends its side at once; a stuck one is cancelled after
    ``CLOSE_WAIT_S``)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[PlayStream, _Deadline]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def take(self, stream: PlayStream) -> None:
        """Read ``stream`` to its end; it is cancelled ``CLOSE_WAIT_S`` after now if the bot
        has not ended it by then (the wait runs from here, not from the reaper reaching it,
        so a stuck bot holds the streams queued behind it ``CLOSE_WAIT_S`` at most)."""
        token = _DEADLINES.arm(time.monotonic() + CLOSE_WAIT_S, stream)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="kwhist-play-reaper", daemon=True)
                self._thread.start()
        self._queue.put((stream, token))

    def _run(self) -> None:
        while True:
            stream, token = self._queue.get()
            try:
                stream._drain()
            except PRIVATE_LAYER_ERRORS as error:  # the layer changed: no stream is opened after this
                turn_streams_off(error)
            _DEADLINES.disarm(token)


_DEADLINES = _Deadlines()
_REAPER = _Reaper()


class PlayStream:
    """One open ``Play`` stream of one seat of one game; ``stub`` the bot's stub. One
    decision at a time, asked by one thread at a time (the match asks a seat's decisions
    in turn). Raises ``ValueError`` when the channel is closed, and one of
    :data:`~referee.transport.streamguard.PRIVATE_LAYER_ERRORS` when gRPC's layer below its
    public API is not what this class uses (the caller then asks by ``Decide``)."""

    def __init__(self, stub: Any) -> None:
        play = stub.Play  # grpc's stream-stream multi-callable: its channel, method and context
        self._lock = threading.Lock()
        self._pending = 2  # batches handed to gRPC whose event is not read yet
        self._status: tuple[grpc.StatusCode, str] | None = None
        self._expired = False
        self._asking = False  # a thread is reading this stream's events in ask()
        self._to_reaper = False  # closed or abandoned during an ask: the asker hands it to the reaper
        self.broken = False  # ended, failed or out of turn: the seat's next decision opens a new stream
        self._call = play._channel.segregated_call(
            cygrpc.PropagationConstants.GRPC_PROPAGATE_DEFAULTS,
            play._method,
            None,  # host
            None,  # no deadline for the call: each ask has its own (_Deadlines)
            None,  # metadata
            None,  # credentials
            (
                ((cygrpc.SendInitialMetadataOperation(None, _FLAGS), cygrpc.ReceiveStatusOnClientOperation(_FLAGS)), _START),
                ((cygrpc.ReceiveInitialMetadataOperation(_FLAGS),), _META),
            ),
            play._context,
            play._registered_call_handle,
        )
        self._receiving = False  # a receive is outstanding (_NEXT): what the bot sends between decisions is taken
        with self._lock:
            self._receive()

    def ask(self, request: pb.DecisionRequest, deadline_s: float | None) -> Heard:
        """Send ``request`` and wait for its answer, up to ``deadline_s`` seconds (None: no
        limit), blocking the calling thread. Never raises for the bot's behaviour. An answer
        taken before the request was sent comes back ``early``, and the request is not sent."""
        with self._lock:
            self._asking = True
        before = self._before_sending()
        if before is not None:
            return before
        started = time.monotonic()
        token = None if deadline_s is None else _DEADLINES.arm(started + deadline_s, self)
        with self._lock:
            try:
                asked = self._status is None and self._receiving and self._call.operate(
                    (cygrpc.SendMessageOperation(request.SerializeToString(), _FLAGS),), _ASK
                )
            except PRIVATE_LAYER_ERRORS:
                if token is not None:
                    _DEADLINES.disarm(token)
                self._asking = False
                raise
            self._pending += 1 if asked else 0
        message = self._answer() if asked else None
        if message is None:
            self._drain()  # the stream is over: its status says why
        ended = time.monotonic()
        fired = token is not None and _DEADLINES.disarm(token)
        self._done_asking()
        if message is None:
            return self._over(fired, started, ended)
        heard = _decoded(message, started, ended)
        if heard.answer is None:
            self.abandon()
        elif fired:
            self.close()  # answered just as the deadline cancelled the stream: a new one next time
        else:
            with self._lock:
                self._receive()
        return heard

    def _before_sending(self) -> Heard | None:
        """Read what the stream holds before a request is sent, up to a marker batch gRPC
        completes at once: None when nothing came; else what ends the ask (an answer sent
        before its request, or the stream's end)."""
        with self._lock:
            try:
                marked = self._status is None and self._call.operate((), _MARK)
            except PRIVATE_LAYER_ERRORS:
                self._asking = False
                raise
            self._pending += 1 if marked else 0
        early: bytes | None = None
        came = False
        while marked:
            event = self._call.next_event()
            tag = self._read(event)
            if tag is _NEXT:
                came, early = True, _message(event)
            elif tag is _MARK:
                break
        if not came and marked:
            return None
        now = time.monotonic()
        if early is None:  # the stream ended (or never started) before this request
            self._drain()
            self._done_asking()
            return self._over(False, now, now)
        self._done_asking()
        self.abandon()
        return _decoded(early, now, now, early=True)

    def _answer(self) -> bytes | None:
        """Read events up to the outstanding receive's and the request's send: the answer, or
        None (the stream ended). gRPC takes one send at a time: the next request waits for
        this one's event, which comes at once once the bot has answered."""
        message: bytes | None = None
        answered = sent = False
        while not (answered and sent):
            event = self._call.next_event()
            tag = self._read(event)
            if tag is _NEXT:
                answered, message = True, _message(event)
                if message is None:
                    return None  # the stream is over: the send's event comes with its end
            elif tag is _ASK:
                sent = True
        return message

    def _receive(self) -> None:
        """Post the receive that takes the bot's next message (lock held)."""
        self._receiving = self._status is None and self._call.operate((cygrpc.ReceiveMessageOperation(_FLAGS),), _NEXT)
        self._pending += 1 if self._receiving else 0

    def _done_asking(self) -> None:
        with self._lock:
            self._asking = False
            if self._to_reaper:
                _REAPER.take(self)

    def _over(self, fired: bool, started: float, ended: float) -> Heard:
        """The ask of a stream that gave no answer: expired, ended by the bot, or failed."""
        self.broken = True
        code, details = self._status or (grpc.StatusCode.UNKNOWN, "the stream ended")
        if self._expired or fired:
            return Heard(None, None, False, True, started, ended)
        if code is grpc.StatusCode.OK:
            return Heard(None, None, True, False, started, ended)
        return Heard(None, StreamError(code, details), False, False, started, ended)

    def _read(self, event: Any) -> str:
        """Note one event of this stream's queue; returns its tag."""
        tag: str = event.tag
        with self._lock:
            self._pending -= 1
            if tag is _NEXT:
                self._receiving = False
            if tag is _START:
                status = event.batch_operations[1]
                code = _common.CYGRPC_STATUS_CODE_TO_STATUS_CODE.get(status.code(), grpc.StatusCode.UNKNOWN)
                self._status = (code, _common.decode(status.details() or b"").replace("\n", " ").strip())
        return tag

    def _drain(self) -> None:
        """Read this stream's events to its end (every batch's event, the status among them)."""
        while True:
            with self._lock:
                if self._pending == 0:
                    return
            self._read(self._call.next_event())

    def _expire(self) -> None:
        """The awaited answer is overdue (the deadline thread): cancel the stream."""
        self._expired = True
        self._call.cancel(cygrpc.StatusCode.cancelled, "the answer's deadline passed")

    def abandon(self) -> None:
        """Cancel the stream (a fault on it): what the bot still sends is never read."""
        with self._lock:
            self.broken = True
            self._call.cancel(cygrpc.StatusCode.cancelled, "abandoned by the referee")
            self._reap()

    def close(self) -> None:
        """End the stream, never blocking: the bot sees the end of its requests, and the
        reaper reads the stream to its end. Idempotent."""
        with self._lock:
            if self.broken:
                return
            self.broken = True
            if self._status is None and self._call.operate((cygrpc.SendCloseFromClientOperation(_FLAGS),), _CLOSE):
                self._pending += 1
            self._reap()

    def _reap(self) -> None:
        """Hand the stream to the reaper, or have the thread asking on it do so (lock held)."""
        if self._asking:
            self._to_reaper = True
        else:
            _REAPER.take(self)


def _message(event: Any) -> bytes | None:
    """The message a receive's event took, None when the stream ended instead."""
    return event.batch_operations[0].message() if event.success else None


def _decoded(message: bytes, started: float, ended: float, *, early: bool = False) -> Heard:
    """The :class:`Heard` of an answer's bytes: the ``Answer``, or the error of bytes that
    are none (its ``answer`` None: the caller abandons the stream)."""
    try:
        answer = pb.Answer.FromString(message)
    except DecodeError:
        return Heard(None, StreamError(grpc.StatusCode.INTERNAL, "Exception deserializing response!"), False, False, started, ended)
    return Heard(answer, None, False, False, started, ended, early=early)


def self_check() -> None:
    """Use, once, everything this module takes from below gRPC's public API, on a stream to
    nowhere: open it on a channel to a socket that does not exist (which posts its first
    receive), hand it a marker, an ask and a close, cancel it and read it to its end. No bot is involved. Raises one of
    :data:`~referee.transport.streamguard.PRIVATE_LAYER_ERRORS` when that layer is missing
    or has changed (the referee then asks every bot by ``Decide``)."""
    channel = grpc.insecure_channel("unix:/nonexistent/kwhist-stream-check.sock")
    try:
        stream = PlayStream(pb_grpc.KnockoutWhistBotStub(channel))
        with stream._lock:
            stream._pending += 1 if stream._call.operate((), _MARK) else 0
            stream._pending += 1 if stream._call.operate((cygrpc.SendMessageOperation(b"", _FLAGS),), _ASK) else 0
            stream._pending += 1 if stream._call.operate((cygrpc.SendCloseFromClientOperation(_FLAGS),), _CLOSE) else 0
            stream._call.cancel(cygrpc.StatusCode.cancelled, "the referee's check of its stream client")
        stream._drain()
        if stream._status is None:
            raise AttributeError("a cancelled stream reported no status")
    finally:
        channel.close()
