"""Whether ``Play`` streams can be used in this run (docs/design.md §4).

:mod:`referee.transport.stream` drives each stream through a gRPC layer below its public
API (a segregated call of ``grpc._cython.cygrpc``). When a grpcio release removes or
changes what it uses, the first use raises one of :data:`PRIVATE_LAYER_ERRORS`; the
transport then turns streams off for the rest of the run with one line on the referee's
log (stderr), and every bot is asked by unary ``Decide``, which the public API serves.
Asking by ``Decide`` gives the same replies and the same judgement (§5), so a league
completes with the same games either way.
"""

from __future__ import annotations

import logging
import threading

import grpc

PRIVATE_LAYER_ERRORS = (ImportError, AttributeError, TypeError)
"""What a missing or changed gRPC layer below the public API raises: a module or name gone,
a call whose signature changed."""

_lock = threading.Lock()
_off: str | None = None


def streams_off() -> str | None:
    """Why ``Play`` streams are off for this run (one line), or None while they are used.
    Once off they stay off."""
    return _off


def turn_streams_off(error: BaseException) -> None:
    """Stop using ``Play`` streams for the rest of the run, because of ``error`` (one of
    :data:`PRIVATE_LAYER_ERRORS`), and say so once on the ``referee.transport`` logger
    (Python's last-resort handler prints a warning on stderr). Thread-safe; never raises."""
    global _off
    with _lock:
        if _off is not None:
            return
        _off = (
            f"Play streams off for this run: grpcio {grpc.__version__} lacks what referee.transport.stream uses below "
            f"its public API ({type(error).__name__}: {error}); every bot is asked by Decide"
        )
    logging.getLogger("referee.transport").warning(_off)
