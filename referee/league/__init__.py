"""The running league: bot pools, one game under time control (match), the league loop and its budget.

Imports the wings below it (game, schedule, standings, results, sandbox, transport, config); never report, web or cli.
"""
