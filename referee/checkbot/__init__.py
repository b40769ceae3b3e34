"""``referee check-bot``: a conformance report for one bot (docs/design.md §1).

- :mod:`referee.checkbot.situations` — one situation per branch of the rules, found by playing seeded games.
- :mod:`referee.checkbot.checks` — :func:`~referee.checkbot.checks.check_bot` runs every
  check, returns :class:`~referee.checkbot.checks.CheckResult` rows.
- :mod:`referee.checkbot.describe` — fault evidence (a stored request) in words.

Above the league, below report, web and cli: it imports the league and the wings below it
(game, schedule, sandbox, transport) and errors; no rich (``referee.cli.check_bot`` renders
the report). This file imports nothing, so callers import from the modules above:
``referee faults`` needs only :mod:`~referee.checkbot.describe`, not the league, trio and
grpc that the checks bring.
"""
