"""Test helpers for the rules engine: build exact deals, plan whole rounds, play them.

Written independently of ``referee.game.dealing`` so that the tests check the engine's
dealing (rules.md R6) rather than repeat it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from referee.game.cards import CARDS, Card, Suit, parse_card, parse_cards
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import ChooseTrump, DecisionKind, Pass, Play, SeatStatus, TrickWon

IN, DOG, OUT = SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT


def card(text: str) -> Card:
    return parse_card(text)


def as_cards(cards: str | Iterable[Card]) -> list[Card]:
    return list(parse_cards(cards)) if isinstance(cards, str) else list(cards)


def recipients(dealer: int, status: Sequence[SeatStatus], hand_size: int) -> list[int]:
    """Seat receiving each deck position (rules.md R6), written out for the tests."""
    n = len(status)
    seats = [(dealer + k) % n for k in range(1, n + 1) if status[(dealer + k) % n] is not OUT]
    order = []
    for pass_number in range(hand_size):
        order += [seat for seat in seats if pass_number == 0 or status[seat] is not DOG]
    return order


def build_deck(
    dealer: int,
    num_seats: int,
    hands: Mapping[int, str | Iterable[Card]],
    hand_size: int,
    *,
    status: Sequence[SeatStatus] | None = None,
    turn_up: str | Card | None = None,
    turn_up_at: str = "top",
) -> tuple[Card, ...]:
    """A 52-card deck whose deal gives each seat the chosen cards (rules.md R6).

    Hands given short are filled from unused cards, highest canonical cards first;
    the turn-up goes to the top of the stock (or position 51 for ``bottom``).
    """
    status = tuple(status or (IN,) * num_seats)
    order = recipients(dealer, status, hand_size)
    given = {seat: as_cards(cards) for seat, cards in hands.items()}
    up = parse_card(turn_up) if isinstance(turn_up, str) else turn_up
    used = [c for cards in given.values() for c in cards] + ([up] if up else [])
    assert len(used) == len(set(used)), f"a card is used twice: {used}"
    spare = [c for c in reversed(CARDS) if c not in used]
    for seat in set(order):
        hand = given.setdefault(seat, [])
        need = order.count(seat)
        assert len(hand) <= need, f"seat {seat} gets {need} cards, {len(hand)} given"
        while len(hand) < need:
            hand.append(spare.pop(0))
    deck: list[Card | None] = [None] * 52
    dealt = {seat: 0 for seat in given}
    for position, seat in enumerate(order):
        deck[position] = given[seat][dealt[seat]]
        dealt[seat] += 1
    if up is not None:
        position = len(order) if turn_up_at == "top" else 51
        assert deck[position] is None
        deck[position] = up
    rest = iter(spare)
    result = tuple(c if c is not None else next(rest) for c in deck)
    assert sorted(result) == sorted(CARDS)
    return result


@dataclass
class RoundPlan:
    """One round to play: its dealer and statuses (checked against the engine) and either
    the winner of every trick (cards then planned: every trick all in one suit, so any
    order of play is legal and the winner holds its highest card) or explicit tricks.

    ``dog_tricks``: dog seat -> index of the trick it plays in (default: the last);
    it passes on the others. ``trump``: what the chooser names in rounds 2+.
    """

    dealer: int
    status: Sequence[SeatStatus]
    winners: Sequence[int] = ()
    dog_tricks: Mapping[int, int] = field(default_factory=dict)
    tricks: Sequence[Mapping[int, str]] = ()
    trump: Suit | None = Suit.SPADES
    turn_up: str | None = None

    @property
    def hand_size(self) -> int:
        return len(self.tricks) or len(self.winners)

    def planned_tricks(self) -> list[dict[int, Card]]:
        if self.tricks:
            return [{seat: parse_card(text) for seat, text in trick.items()} for trick in self.tricks]
        reserved = {parse_card(self.turn_up)} if self.turn_up else set()
        pools = {suit: [c for c in CARDS if c.suit == suit and c not in reserved] for suit in Suit}
        players = [seat for seat, standing in enumerate(self.status) if standing is not OUT]
        last = len(self.winners) - 1
        tricks = []
        for index, winner in enumerate(self.winners):
            playing = [s for s in players if self.status[s] is not DOG or self.dog_tricks.get(s, last) == index]
            assert winner in playing, f"trick {index}: winner {winner} does not play"
            suit = max(Suit, key=lambda s: len(pools[s]))
            chosen = pools[suit][: len(playing)]
            del pools[suit][: len(playing)]
            others = [s for s in playing if s != winner]
            trick = {winner: chosen[-1]}
            trick.update(zip(others, chosen[:-1]))
            tricks.append(trick)
        return tricks

    def deck(self) -> tuple[Card, ...]:
        tricks = self.planned_tricks()
        hands = {seat: [t[seat] for t in tricks if seat in t] for seat in range(len(self.status))}
        turn_up: Card | None = parse_card(self.turn_up) if self.turn_up else None
        if turn_up is None:
            used = {c for t in tricks for c in t.values()}
            turn_up = next(c for c in CARDS if c not in used)
        return build_deck(
            self.dealer, len(self.status), hands, self.hand_size, status=self.status, turn_up=turn_up
        )


def planned_game(plans: Sequence[RoundPlan], rules: Rules | None = None, seed: int = 0) -> Game:
    """A game whose round r deck comes from ``plans[r-1]``; the first dealer is plans[0]'s."""
    decks = {number: plan.deck() for number, plan in enumerate(plans, start=1)}
    first = plans[0]
    return Game(len(first.status), rules or Rules(), seed, first_dealer=first.dealer, decks=decks)


def play_round(game: Game, plan: RoundPlan, tricks: int | None = None) -> None:
    """Play ``plan`` (or its first ``tricks`` tricks) on ``game``, checking dealer, statuses,
    hand size and every trick's winner against the plan."""
    view = game.view(0)
    assert view.dealer == plan.dealer, f"round {view.round_number}: dealer {view.dealer}, planned {plan.dealer}"
    assert view.status == tuple(plan.status), f"round {view.round_number}: status {view.status}"
    assert view.hand_size == plan.hand_size
    if game.decision() is DecisionKind.CHOOSE_TRUMP:
        assert game.to_act is not None
        game.apply(game.to_act, ChooseTrump(plan.trump))
    planned = plan.planned_tricks()
    for index, trick in enumerate(planned[:tricks]):
        while True:
            seat = game.to_act
            assert seat is not None
            before = len(game.events)
            game.apply(seat, Play(trick[seat]) if seat in trick else Pass())
            won = [e for e in game.events[before:] if isinstance(e, TrickWon)]
            if won:
                if plan.winners:
                    assert won[0].seat == plan.winners[index], f"trick {index + 1} won by {won[0].seat}"
                break


def play_plans(plans: Sequence[RoundPlan], rules: Rules | None = None, seed: int = 0) -> Game:
    game = planned_game(plans, rules, seed)
    for plan in plans:
        play_round(game, plan)
    return game


def play_out(game: Game) -> None:
    """Finish the game with the first legal action each time."""
    while not game.over:
        assert game.to_act is not None
        game.apply(game.to_act, game.legal_actions()[0])


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything observable about a game, for before/after comparisons."""
    return (
        tuple(game.view(seat) for seat in range(game.num_seats)),
        tuple(game.events),
        tuple(game.rounds),
        game.to_act,
        game.over,
        game.decision(),
        game.legal_actions(),
        game.outcome,
    )
