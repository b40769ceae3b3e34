"""Fault policy presets (DESIGN.md §5). Pure data.

``league``: a fault plays the fallback action and is recorded; after ``max_faults`` in one
game the bot forfeits (fallbacks for the rest of that round, knocked out at its end,
placed below everyone knocked out by play). A crashed bot is restarted before its next
game; after ``max_restarts`` restarts in a league it is withdrawn.
``strict``: the first fault forfeits. ``debug``: no time limits, every request traced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Preset = Literal["league", "strict", "debug"]


@dataclass(frozen=True)
class FaultPolicy:
    preset: Preset = "league"
    max_faults: int = 3  # faults in one game before the bot forfeits
    max_restarts: int = 3  # restarts in one league before the bot is withdrawn

    @property
    def forfeit_after(self) -> int:
        """Faults in one game that make a bot forfeit."""
        return 1 if self.preset == "strict" else self.max_faults

    @property
    def trace(self) -> bool:
        return self.preset == "debug"
