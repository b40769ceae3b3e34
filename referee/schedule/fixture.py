"""One game of a schedule: :class:`Fixture`, and the seeded hash every schedule draws from
(docs/design.md §7). Pure: no I/O, no clock."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

Format = Literal["round_robin", "gauntlet", "movement"]


@dataclass(frozen=True)
class Fixture:
    """One game of the schedule.

    ``index`` is its 0-based position in the schedule; ``table`` the table's bots in base
    seat order; ``deal`` (0-based) the deal at this table; ``rotation`` (0-based) how far
    the base order is turned: ``seats[i] == table[(i + rotation) % len(table)]``;
    ``seed`` the deal seed (a 64-bit int, the same for every rotation of a deal);
    ``first_dealer`` the seat index of the round-1 dealer (rules.md R4, the same for every
    rotation); ``game_id`` counts from 1, e.g. ``"t03-d1-r2"`` = table 3, deal 1, rotation 2.
    ``round`` is the 0-based schedule round (movement format; 0 for the others).
    """

    index: int
    table: tuple[str, ...]
    deal: int
    rotation: int
    seats: tuple[str, ...]
    seed: int
    first_dealer: int
    game_id: str
    round: int = 0

    @property
    def deal_key(self) -> tuple[int, tuple[str, ...], int, int]:
        """What the rotations of this fixture's deal share and no other game does: (round,
        table, deal, seed). A bot process plays at most one game of a deal (docs/design.md §6)."""
        return (self.round, self.table, self.deal, self.seed)


def deal_hash(*parts: object) -> int:
    """A 64-bit integer from sha256 of the parts joined by ':'."""
    text = ":".join(str(part) for part in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
