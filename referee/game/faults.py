"""Fault policy presets (docs/design.md §5). Pure data.

A fault never pays. ``league``: a fault plays the fallback action (deterministic and
deliberately weak: :func:`referee.game.views.fallback_action`) and is recorded; after
``max_faults`` (1-10) in one game the bot forfeits (fallbacks for the rest of that round,
knocked out at its end, placed below everyone knocked out by play in that round). A
``crash`` forfeits the game at once in the same way. A crashed bot is restarted before its
next game; after ``max_restarts`` restarts in a league it is withdrawn.
``strict``: the first fault forfeits. ``debug``: no time limits, every request traced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Preset = Literal["league", "strict", "debug"]


@dataclass(frozen=True)
class FaultPolicy:
    """A preset and its bounds (module doc).

    >>> FaultPolicy().forfeit_after, FaultPolicy("strict").forfeit_after, FaultPolicy("debug").trace
    (3, 1, True)
    """

    preset: Preset = "league"
    max_faults: int = 3  # faults in one game before the bot forfeits (1-10, the config's bound)
    max_restarts: int = 3  # restarts in one league before the bot is withdrawn

    @property
    def forfeit_after(self) -> int:
        """Faults in one game that make a bot forfeit."""
        return 1 if self.preset == "strict" else self.max_faults

    @property
    def trace(self) -> bool:
        """Whether every request is traced (``debug``)."""
        return self.preset == "debug"
