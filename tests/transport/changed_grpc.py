"""Run the ``referee`` command with gRPC's layer below its public API missing or changed,
as another grpcio release might have it (docs/design.md §4: the Play stream's fallback).

    python tests/transport/changed_grpc.py MODE referee-arguments...

MODE ``missing``: ``grpc._cython.cygrpc`` cannot be imported any more by new code (grpc's
own modules keep the copy they imported, so unary calls still work). ``signature``: the
channel's ``segregated_call`` takes other arguments (a TypeError). ``renamed``: the
multi-callable lost the private attribute the stream reads (an AttributeError).
"""

from __future__ import annotations

import sys
from typing import Any

import grpc
import grpc._channel
import grpc._cython


def missing() -> None:
    del grpc._cython.cygrpc  # type: ignore[attr-defined]
    sys.modules["grpc._cython.cygrpc"] = None  # type: ignore[assignment]


class _ChangedChannel:
    """A channel whose ``segregated_call`` has a new signature; the rest as it was."""

    def __init__(self, channel: Any) -> None:
        self._channel = channel

    def segregated_call(self, *args: Any) -> Any:
        raise TypeError(f"segregated_call() takes exactly {len(args) + 1} positional arguments ({len(args)} given)")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)


def _patch_stream_callable(change: Any) -> None:
    callable_type = grpc._channel._StreamStreamMultiCallable
    original = callable_type.__init__

    def patched(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        change(self)

    callable_type.__init__ = patched  # type: ignore[method-assign]


def signature() -> None:
    _patch_stream_callable(lambda play: setattr(play, "_channel", _ChangedChannel(play._channel)))


def renamed() -> None:
    _patch_stream_callable(lambda play: delattr(play, "_registered_call_handle"))


if __name__ == "__main__":
    {"missing": missing, "signature": signature, "renamed": renamed}[sys.argv[1]]()
    sys.argv[1:] = sys.argv[2:]
    from referee.cli.main import entry

    entry()
