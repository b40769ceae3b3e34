"""What a league keeps on disk: the SQLite results store and deal files.

Imports ``referee.game``, ``referee.config`` and ``referee.errors``; never the league, report, web or cli.
"""
