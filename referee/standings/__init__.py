"""The pure standings: game records folded into the table, strength adjusted for table-mates, its uncertainty, verdicts and ratings.

Imports only ``referee.game`` and ``referee.errors`` (and numpy, scipy, openskill); no I/O, no clock (docs/design.md §7).
"""
