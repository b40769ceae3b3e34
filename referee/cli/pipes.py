"""A reader that stops early (``referee standings ... | head``) is not an error."""

from __future__ import annotations

import os
import sys

EXIT_BROKEN_PIPE = 141
"""The exit code of a command whose output pipe was closed: 128 + SIGPIPE, as the shell
reports a program that SIGPIPE stopped."""


def quiet_broken_pipe() -> int:
    """Call when writing to stdout raised BrokenPipeError: points stdout at /dev/null, so
    that flushing it at exit raises nothing more, and returns :data:`EXIT_BROKEN_PIPE`."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
    return EXIT_BROKEN_PIPE
