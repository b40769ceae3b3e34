"""The pure standings: game records folded into the table, its uncertainty and ratings.

Imports only ``referee.game`` and ``referee.errors``; no I/O, no clock (docs/design.md §7).
"""
