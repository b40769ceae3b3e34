"""``referee check-bot``: a conformance report for one bot (docs/design.md §1).

- :mod:`referee.checkbot.situations` — exact scripted positions built with the rules engine.
- :mod:`referee.checkbot.checks` — :func:`check_bot` runs every check, returns :class:`CheckResult` rows.
- :mod:`referee.checkbot.describe` — fault evidence (a stored request) in words.

No rich here: ``referee.cli.check_bot`` renders the report.
"""

from referee.checkbot.checks import CheckResult, CheckSettings, check_bot
from referee.checkbot.describe import describe_request, legal_answers
from referee.checkbot.situations import Situation, build_situations

__all__ = ["CheckResult", "CheckSettings", "Situation", "build_situations", "check_bot", "describe_request", "legal_answers"]
