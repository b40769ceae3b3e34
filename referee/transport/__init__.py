"""The only importer of grpc and the generated code on the referee side (docs/design.md §2).

- :mod:`referee.transport.codec` — pure conversion SeatView/events/actions <-> protobuf.
- :mod:`referee.transport.client` — :class:`~referee.transport.client.BotClient`, the
  referee's gRPC client under trio (time measured per decision, faults classified).
- :mod:`referee.transport.stream` — one seat's ``Play`` stream, its deadlines kept by the
  thread that feeds it (for a bot whose Hello reply sets ``plays_streams``); imported on
  first use only, guarded by :mod:`referee.transport.streamguard` (streams off, ``Decide``
  for every bot, when gRPC's layer below its public API changed).
- :mod:`referee.transport.replies` — :class:`~referee.transport.replies.DecisionAsk` (what
  is asked) and :class:`~referee.transport.replies.Reply` (what came back), no grpc.
- :mod:`referee.transport.protogen` — ``make proto``.

It builds requests from a :class:`referee.game.views.SeatView` alone (docs/design.md §3): it
imports the game's public types (views, cards, rules, time control), errors, grpc and the
generated code; never the game's engine, dealing, round ends, game log or records (an
import-linter contract), nor a wing above it.
"""

import os

# Before any submodule imports grpc: gRPC logs at INFO level about fork() while bot processes
# start (and the bots inherit the setting); users need only its errors.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from referee.transport.errors import HelloError, MalformedReply, ProtocolMismatch  # noqa: E402 (after the setting)

__all__ = ["HelloError", "MalformedReply", "ProtocolMismatch"]
