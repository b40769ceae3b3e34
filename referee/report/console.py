"""The console every command prints to."""

from __future__ import annotations

import os

from rich.console import Console


def make_console(*, stderr: bool = False) -> Console:
    """A rich console; when the output is not a terminal (a file, a pipe, CI) it is 120
    columns wide unless ``COLUMNS`` says otherwise, so tables are not squeezed to 80."""
    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, stderr=stderr, width=120)
    return console
