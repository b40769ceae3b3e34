"""The league's web site (starlette): live standings, head-to-head, bot pages, the game
viewer, static export.

Beside the cluster, below cli: it imports the league, results, standings, schedule, config,
check-bot's fault wording, the game and errors; never report, the cluster or cli. Its viewer
(:mod:`referee.web.viewer`) is pure, a page model built from a record (the pure core's
contract).
"""
