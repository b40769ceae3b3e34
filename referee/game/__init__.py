"""The pure game: cards, rules, the engine, seat views, records, fault policy and time control.

Imports nothing of the referee but ``referee.errors``; no I/O, no clock (docs/design.md §2-§3).
"""
