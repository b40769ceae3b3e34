"""Bot-supplied text made safe for a terminal (docs/sandbox.md "Threat model").

Whatever a bot controls (its stderr, its Hello name and author, gRPC error details, its
answers) may hold escape sequences that clear the screen, recolour it, set the window
title or worse. Every command prints such text through :func:`safe_text` (and, in rich
markup, :func:`safe_markup`). Pure: no I/O.
"""

from __future__ import annotations

import re

from rich.markup import escape

# C0 controls but tab and newline, DEL, C1 controls (0x80-0x9f: CSI, OSC, ... on their own),
# and the bidirectional overrides that can make text display in another order than it reads
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """``text`` with every control character but tab and newline (C0, ESC, DEL, C1) and the
    bidirectional overrides shown as ``\\xNN`` / ``\\uNNNN``: ``"a\\x1b[2Jb"`` prints as
    ``a\\x1b[2Jb``, inert."""
    return _UNSAFE.sub(_escaped, text)


def safe_markup(text: str) -> str:
    """:func:`safe_text`, then rich markup escaped (for ``console.print`` of a markup string)."""
    return escape(safe_text(text))
