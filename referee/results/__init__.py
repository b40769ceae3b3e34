"""The results on disk: the SQLite results store of a league (one transaction per game; resume) and deal files.

Imports the game, the standings' value types and errors; never league, report, web or cli.
"""
