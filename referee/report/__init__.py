"""Everything the referee shows: live progress, standings tables, game traces, exports (rich)."""
