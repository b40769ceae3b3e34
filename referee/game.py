"""The pure rules engine (rules.md §1, variants §2). API CONTRACT — implementation in progress.

    game = Game(num_seats=4, rules=Rules(), seed=123, game_id="g1")
    while not game.over:
        seat = game.to_act
        view = game.view(seat)            # SeatView: own hand + public facts + legal actions
        game.apply(seat, view.legal[0])   # raises IllegalAction, state unchanged
    game.outcome                          # Outcome
    game.events                           # list[Event], the public log
    game.rounds                           # list[RoundRecord], deck order per round etc.

Deterministic: (num_seats, rules, seed, first_dealer, decks, actions) replays exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.cards import Card, Suit
from referee.rules import Rules
from referee.views import Action, DecisionKind, Event, SeatView, Trick


@dataclass(frozen=True)
class RoundRecord:
    """One round, for the game record (issue 3 §2)."""

    round_number: int
    dealer: int
    hand_size: int
    deck: tuple[Card, ...]  # the 52-card order this round was dealt from
    hands: tuple[tuple[Card, ...], ...]  # per seat as dealt (empty for seats out)
    turn_up: Card | None
    trump: Suit | None
    no_trump: bool
    trump_chooser: int | None
    tricks: tuple[Trick, ...]
    tricks_won: tuple[int, ...]
    knocked_out: tuple[int, ...]
    dogs: tuple[int, ...]
    forfeited: tuple[int, ...]


@dataclass(frozen=True)
class Outcome:
    """Final result (rules.md R21, DESIGN.md §7).

    ``placements[seat]`` is 1 for the winner; seats knocked out in the same round share a
    place (competition ranking: 1, 2, 2, 4); a seat that forfeited in round r is placed
    below every seat knocked out by play in round r. ``knocked_out_round[seat]`` is None
    for the winner.
    """

    winner: int | None
    placements: tuple[int, ...]
    knocked_out_round: tuple[int | None, ...]
    forfeited: tuple[bool, ...]


class Game:
    def __init__(
        self,
        num_seats: int,
        rules: Rules,
        seed: int,
        *,
        game_id: str = "",
        first_dealer: int | None = None,
        decks: Mapping[int, Sequence[Card]] | None = None,
    ) -> None:
        raise NotImplementedError

    to_act: int | None
    over: bool
    events: list[Event]
    rounds: list[RoundRecord]
    outcome: Outcome | None
    first_dealer: int

    def decision(self) -> DecisionKind | None: ...
    def legal_actions(self) -> tuple[Action, ...]: ...
    def view(self, seat: int) -> SeatView: ...
    def apply(self, seat: int, action: Action) -> None: ...
    def forfeit(self, seat: int) -> None: ...
