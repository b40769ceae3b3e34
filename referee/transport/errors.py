"""Errors of the transport: a bot's reply that cannot be decoded, a failed handshake.

All are :class:`referee.errors.BotError`, so the command line prints them as one line.
Inside a game the match turns them into faults (docs/design.md §5) instead of raising.
"""

from __future__ import annotations

from typing import Literal

from referee.errors import BotError


class MalformedReply(BotError):
    """A bot's ``Action`` cannot be decoded: no oneof field set, an unknown or
    unspecified enum value, or an action of the wrong kind (a card when trump was asked).
    Fault kind ``malformed`` (docs/design.md §5). The message says what to fix."""


class HelloError(BotError):
    """The handshake failed. ``kind`` is the fault kind (docs/design.md §5): ``"startup"``
    (unreachable, no Hello reply in time, an error status) or ``"protocol"``
    (:class:`ProtocolMismatch`)."""

    kind: Literal["startup", "protocol"] = "startup"

    def __init__(self, message: str, answer: str = "") -> None:
        super().__init__(message)
        self.answer = answer  # fault evidence: the gRPC status, or the HelloReply as JSON ("" if none)


class ProtocolMismatch(HelloError):
    """The bot speaks another major protocol version, or has no KnockoutWhistBot service
    at that address (fault ``protocol``)."""

    kind: Literal["startup", "protocol"] = "protocol"
