"""The pure schedule: who plays whom, in which seat, with which deal (fixtures, movement, seating).

Imports only ``referee.game`` and ``referee.errors``; no I/O, no clock (docs/design.md §7).
"""
