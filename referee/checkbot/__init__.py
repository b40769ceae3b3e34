"""``referee check-bot``: a conformance report for one bot (docs/design.md §1).

- :mod:`referee.checkbot.situations` — exact scripted positions built with the rules engine.
- :mod:`referee.checkbot.checks` — :func:`check_bot` runs every check, returns :class:`CheckResult` rows.
- :mod:`referee.checkbot.describe` — fault evidence (a stored request) in words.

No rich here: ``referee.cli.check_bot`` renders the report. The names below load their
module on first use: ``referee faults`` needs only :mod:`~referee.checkbot.describe`, not
the league, trio and grpc that the checks bring.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.checkbot.checks import CheckResult, CheckSettings, check_bot
    from referee.checkbot.describe import describe_request, legal_answers
    from referee.checkbot.situations import Situation, build_situations

__all__ = ["CheckResult", "CheckSettings", "Situation", "build_situations", "check_bot", "describe_request", "legal_answers"]

_HOME = {
    "CheckResult": "checks", "CheckSettings": "checks", "check_bot": "checks",
    "describe_request": "describe", "legal_answers": "describe",
    "Situation": "situations", "build_situations": "situations",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
