"""The league's web site (starlette): live standings, head-to-head, bot pages, the game
viewer, static export; a person's table (:mod:`referee.web.table`).

Beside the cluster, below cli: it imports the league, results, standings, schedule, config,
check-bot's fault wording, the game and errors; never report, the cluster or cli. Its viewer
(:mod:`referee.web.viewer`) is pure, a page model built from a record, and so is the table's
(:mod:`referee.web.tableview`), built from a seat's view and the public events (the pure
core's contract).
"""
