"""One seat's ``Play`` stream: the decisions of one seat of one game on one bidirectional
gRPC stream, for a bot whose HelloReply sets ``plays_streams`` (docs/design.md §4, §5).

A sync gRPC stream call reads its requests from an iterator on a thread of gRPC's own
and has no deadline per message; so the iterator (:class:`_Requests`) also keeps the
deadline of the request awaiting its answer: waiting for the next request to send, it
wakes at that deadline and, if the answer has not come, cancels the call. The game's
thread meanwhile waits for the answer on the call itself, and sees the cancellation as
a ``timeout``. A stream that timed out, failed or answered out of turn is ended, and the
seat's next decision opens a new one: an answer late for one decision is never read as
the answer to the next.

No thread is started per decision (a stream costs gRPC's one request thread while it is
open); the answer is read on the game's thread, so its measured time holds no hand-off.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from referee._proto.knockout_whist.v1 import bot_pb2 as pb


@dataclass(frozen=True)
class Heard:
    """What one ask on a stream came to: the ``answer`` (None when none came), else
    ``error`` (the call's gRPC error: its status), ``ended`` (the bot ended the stream
    with status OK before answering) or ``expired`` (the deadline passed: the referee
    cancelled the stream). ``started`` and ``ended_at``: ``time.monotonic()`` s read on
    the asking thread just before the request was handed to gRPC and just after."""

    answer: pb.Answer | None
    error: grpc.RpcError | None
    ended: bool
    expired: bool
    started: float
    ended_at: float


class _Requests(Iterator[pb.DecisionRequest]):
    """The requests of one stream, read by gRPC's request thread, which also keeps the
    deadline of the request awaiting its answer (see the module docstring)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[pb.DecisionRequest | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._due: float | None = None  # monotonic s by which the awaited answer must come; None: none awaited
        self.expired = False
        self.call: Any = None  # the stream call, set before the first request

    def __next__(self) -> pb.DecisionRequest:
        while True:
            with self._lock:
                due = self._due
            try:
                item = self._queue.get(timeout=None if due is None else max(0.0, due - time.monotonic()))
            except queue.Empty:
                with self._lock:
                    expired = self._due is not None and time.monotonic() >= self._due
                    self.expired = self.expired or expired
                if expired:
                    self.call.cancel()
                    raise StopIteration from None
                continue
            if item is None:
                raise StopIteration
            return item

    def send(self, request: pb.DecisionRequest, due: float | None) -> None:
        """Hand ``request`` to gRPC; its answer is due by ``due`` (monotonic s; None: never late)."""
        with self._lock:
            self._due = due
        self._queue.put(request)

    def answered(self) -> bool:
        """The awaited answer came; False when the deadline had already cancelled the stream."""
        with self._lock:
            self._due = None
            return not self.expired

    def end(self) -> None:
        """No more requests: gRPC half-closes the stream (the bot sees its end)."""
        with self._lock:
            self._due = None
        self._queue.put(None)


class PlayStream:
    """One open ``Play`` stream of one seat of one game; ``stub`` the bot's stub. One
    decision at a time (the match asks a seat's decisions in turn)."""

    def __init__(self, stub: Any) -> None:
        self._requests = _Requests()
        self._call = stub.Play(self._requests)  # raises ValueError on a closed channel
        self._requests.call = self._call
        self.broken = False  # ended, failed or out of turn: the seat's next decision opens a new stream

    def ask(self, request: pb.DecisionRequest, deadline_s: float | None) -> Heard:
        """Send ``request`` and wait for its answer, up to ``deadline_s`` seconds (None: no
        limit), blocking the calling thread. Never raises for the bot's behaviour."""
        started = time.monotonic()
        self._requests.send(request, None if deadline_s is None else started + deadline_s)
        try:
            answer: pb.Answer = next(self._call)
        except StopIteration:
            ended = time.monotonic()
            self.abandon()
            return Heard(None, None, True, False, started, ended)
        except grpc.RpcError as error:
            ended = time.monotonic()
            self.abandon()
            return Heard(None, error, False, self._requests.expired, started, ended)
        ended = time.monotonic()
        if not self._requests.answered():
            self.close()  # answered just as the deadline cancelled the stream: a new one next time
        return Heard(answer, None, False, False, started, ended)

    def abandon(self) -> None:
        """Cancel the stream (a fault on it): what the bot still sends is never read."""
        self.broken = True
        self._requests.end()
        self._call.cancel()

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the call has ended (at once if it has). gRPC cancels a
        call whose object is garbage collected: a closed stream must be kept until the bot
        has ended its side too, or the bot may see a cancellation instead of the end."""
        self._call.add_done_callback(lambda _call: callback())

    def close(self) -> None:
        """End the stream (idempotent): the bot sees the end of its requests."""
        if not self.broken:
            self.broken = True
            self._requests.end()
