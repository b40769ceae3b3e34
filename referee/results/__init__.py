"""The results on disk: the SQLite results store of a league (one transaction per game, with a
small summary per game for quick reads; resume) and deal files.

Imports the game, the config, the standings' value types and errors; never the league, report, web or cli.
"""
