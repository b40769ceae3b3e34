"""Everything the referee shows in a terminal (rich): live progress, standings tables, game
traces, fault lists, exports.

Above check-bot and the league: it imports them and the wings below (results, standings,
schedule, transport, game) and errors; never web, the cluster or cli.
"""
