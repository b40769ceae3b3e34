"""What the match asks a bot and what it answered: :class:`DecisionAsk`, :class:`Reply` and
:class:`HelloInfo`.

Pure data with no grpc or generated-code import, so ``referee.league.match`` may import it
(pyproject.toml import-linter contracts); :mod:`referee.transport.client` builds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from referee.game.timecontrol import Evidence
from referee.game.views import Action, Event, SeatView

TransportFault = Literal["timeout", "malformed", "crash"]


@dataclass(frozen=True)
class HelloInfo:
    """What a bot said in its Hello reply: its name and author, its protocol version, and
    whether it plays its decisions over ``Play`` streams (``streams``, protocol 1.1)."""

    name: str
    author: str
    major: int
    minor: int
    streams: bool = False


@dataclass(frozen=True)
class DecisionAsk:
    """One decision asked of one seat's bot (docs/design.md §4, §5): what every player
    (a pooled bot, a bot's client, a person at the table) is given, on a unary ``Decide`` or
    a ``Play`` stream alike.

    ``view``: what the seat may know, with the legal actions; ``events``: the public events
    since this seat's previous request; ``number``: the decision's number in the game (the
    same when a decision is asked again); ``time_left_ms`` and ``bank_left_ms``: what the bot
    is told (ms; 0 = no limit, no bank); ``deadline_s``: how long the referee waits, in s
    (move + grace + bank left), None for no limit (the ``debug`` preset);
    ``last_decision_ms``: the measured time of this seat's previous decision in the game, in
    ms, None on its first."""

    view: SeatView
    events: Sequence[Event]
    number: int
    time_left_ms: int
    bank_left_ms: int
    deadline_s: float | None
    last_decision_ms: float | None = None


@dataclass(frozen=True)
class Reply:
    """The outcome of one ask: a unary ``Decide`` call, or one request on a ``Play``
    stream, alike (docs/design.md §5).

    ``action``: the decoded action, None on a fault. ``fault``: ``"timeout"`` (gRPC
    DEADLINE_EXCEEDED, or no answer on the stream by the deadline), ``"crash"``
    (UNAVAILABLE / CANCELLED: connection lost, process gone), ``"malformed"`` (any other
    status, a reply that does not decode, a streamed answer naming another decision, a
    stream the bot ended), else None.
    Legality is not judged here. ``detail``: one line a student can act on, e.g.
    ``"deadline of 250 ms exceeded"``. ``answer``: what came back, as text: the action
    (``"AS"``, ``"trump H"``, ``"pass"``), the reply as JSON when malformed, or
    ``"STATUS: details"``. ``ms``: measured from sending the request to the reply on a
    monotonic clock, in ms. ``request``: the request as sent (a
    ``DecisionRequest`` message).
    ``request_json``: its compact JSON, rendered on first use (rendering costs about as
    much as the call, so it is done only for evidence). ``evidence``: what the referee saw
    of the machine while it waited (docs/design.md §5), set by the league for a late
    reply; None otherwise.
    """

    action: Action | None
    fault: TransportFault | None
    detail: str
    request: object
    answer: str
    ms: float
    render_request: Callable[[], str] = field(default=lambda: "", repr=False, compare=False)
    evidence: Evidence | None = None

    @cached_property
    def request_json(self) -> str:
        """The request as sent, compact JSON (docs/design.md §5 fault evidence)."""
        return self.render_request()
