"""Decks and dealing (rules.md R3-R7): seeded shuffles, deck checks, who gets which card.

Pure: no I/O, no clock. Randomness only from ``random.Random`` seeded by a string that
names its purpose and round, so fixing the deck of one round leaves every other
round's deck unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import itemgetter

from referee.errors import ConfigError
from referee.game.cards import CARDS, Card
from referee.game.rules import MAX_PLAYERS
from referee.game.views import SeatStatus

CARD_INDEX: dict[Card, int] = {card: index for index, card in enumerate(CARDS)}
"""Card -> position in canonical deck order (``referee.game.cards.CARDS``)."""
_POSITIONS = range(len(CARDS))
_RANDOM = random.Random.random
_OUT, _DOG = SeatStatus.OUT, SeatStatus.DOG
_CLOCKWISE = {
    seats: tuple(tuple((dealer + step) % seats for step in range(1, seats + 1)) for dealer in range(seats))
    for seats in range(1, MAX_PLAYERS + 1)
}
"""``_CLOCKWISE[num_seats][dealer]``: every seat clockwise from the dealer's left, the dealer last."""


def shuffled_deck(seed: int, round_number: int) -> tuple[Card, ...]:
    """The 52 cards of round ``round_number`` (1-based), shuffled from ``seed`` alone (rules.md R3).

    >>> deck = shuffled_deck(seed=1, round_number=1)
    >>> len(set(deck)), deck[:3]
    (52, (Card(QS), Card(9S), Card(7D)))
    >>> shuffled_deck(1, 1) == deck, shuffled_deck(1, 2) == deck  # another round, another deck
    (True, False)
    """
    deck: tuple[Card, ...] = itemgetter(*shuffled_positions(seed, round_number))(CARDS)
    return deck


def shuffled_positions(seed: int, round_number: int) -> list[int]:
    """:func:`shuffled_deck` as positions in canonical order: its cards are ``CARDS[i]`` for
    each ``i`` of the result, in order.

    A uniform shuffle by sorting on random keys (faster than ``Random.shuffle`` in Python).
    """
    keys = list(map(_RANDOM, repeat(random.Random(f"{seed}:deck:{round_number}"), len(CARDS))))  # 52 .random()
    return sorted(_POSITIONS, key=keys.__getitem__)


def draw_first_dealer(seed: int, num_seats: int) -> int:
    """The first dealer, 0..num_seats-1, drawn from ``seed`` (rules.md R4)."""
    return random.Random(f"{seed}:dealer").randrange(num_seats)


def check_deck(round_number: int, deck: Sequence[Card]) -> tuple[Card, ...]:
    """Return ``deck`` as a tuple of canonical cards if it is a permutation of the 52 cards.

    Raises ConfigError naming the round and the first duplicate, missing or unknown card.

    >>> check_deck(2, CARDS[:51] + CARDS[:1])
    Traceback (most recent call last):
    referee.errors.ConfigError: deck for round 2: card 2S appears twice (again at position 51)
    """
    where = f"deck for round {round_number}"
    result: list[Card] = []
    seen: set[Card] = set()
    for position, item in enumerate(deck):
        try:
            card = CARDS[CARD_INDEX[item]]
        except (KeyError, TypeError):
            raise ConfigError(f"{where}: position {position} holds {item!r}, which is not a card") from None
        if card in seen:
            raise ConfigError(f"{where}: card {card} appears twice (again at position {position})")
        seen.add(card)
        result.append(card)
    if len(result) != len(CARDS):
        missing = " ".join(str(card) for card in CARDS if card not in seen)
        raise ConfigError(f"{where}: has {len(result)} cards, expected 52; missing {missing}")
    return tuple(result)


def check_decks(decks: Mapping[int, Sequence[Card]] | None) -> dict[int, tuple[Card, ...]]:
    """Validate every fixed deck (round number -> 52 cards in deal order). Raises ConfigError."""
    if not decks:
        return {}
    checked: dict[int, tuple[Card, ...]] = {}
    for round_number, deck in decks.items():
        if not isinstance(round_number, int) or round_number < 1:
            raise ConfigError(f"decks: round number {round_number!r} must be an integer >= 1")
        checked[round_number] = check_deck(round_number, deck)
    return checked


def next_in(seat: int, status: Sequence[SeatStatus]) -> int:
    """The next seat clockwise from ``seat`` that is still in (rules.md notation "left of").

    Raises ValueError when no seat is in.

    >>> status = [SeatStatus.IN, SeatStatus.OUT, SeatStatus.OUT, SeatStatus.IN]
    >>> next_in(0, status), next_in(3, status)
    (3, 0)
    """
    num_seats = len(status)
    for step in range(1, num_seats + 1):
        candidate = (seat + step) % num_seats
        if status[candidate] is not _OUT:
            return candidate
    raise ValueError("no seat is still in")


def deal(
    deck: Sequence[Card], dealer: int, status: Sequence[SeatStatus], hand_size: int
) -> tuple[list[list[Card]], int]:
    """Deal ``deck`` (rules.md R6): per seat its cards in canonical order, and the number dealt.

    One card at a time clockwise starting left of ``dealer``, to seats still in; a dog
    gets one card, on the first pass, and is skipped after that. Seats out get an empty
    hand. The caller guarantees the deal fits the deck (``Rules.check_players``).

    >>> IN, DOG, OUT = SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT
    >>> hands, dealt = deal(CARDS, dealer=0, status=[IN, IN, IN], hand_size=2)  # 2S first, to seat 1
    >>> [" ".join(str(card) for card in hand) for hand in hands], dealt
    (['4S 7S', '2S 5S', '3S 6S'], 6)
    >>> hands, dealt = deal(CARDS, dealer=0, status=[IN, DOG, IN, OUT], hand_size=2)  # a dog gets one card
    >>> [" ".join(str(card) for card in hand) for hand in hands], dealt
    (['4S 6S', '2S', '3S 5S', ''], 5)
    """
    hands, dealt = deal_positions([CARD_INDEX[card] for card in deck], dealer, status, hand_size)
    return [[CARDS[position] for position in hand] for hand in hands], dealt


def deal_positions(
    deck: list[int], dealer: int, status: Sequence[SeatStatus], hand_size: int
) -> tuple[list[list[int]], int]:
    """:func:`deal` of a deck given as positions in canonical order (``CARD_INDEX``): per
    seat its positions ascending, and the number dealt."""
    num_seats = len(status)
    clockwise = _CLOCKWISE.get(num_seats)
    rotation = clockwise[dealer] if clockwise else [(dealer + step) % num_seats for step in range(1, num_seats + 1)]
    if _OUT not in status and _DOG not in status:  # every seat in: each takes every num_seats-th card
        end = num_seats * hand_size
        hands: list[list[int]] = [[]] * num_seats  # each entry replaced below
        for offset, seat in enumerate(rotation):
            hand = hands[seat] = deck[offset:end:num_seats]
            hand.sort()
        return hands, end
    hands = [[] for _ in status]
    seats = [seat for seat in rotation if status[seat] is not _OUT]
    normal = [seat for seat in seats if status[seat] is not _DOG]
    start, stride = len(seats), len(normal)
    end = start + stride * (hand_size - 1)
    for position, seat in enumerate(seats):  # the first pass
        hands[seat].append(deck[position])
    for offset, seat in enumerate(normal):  # later passes: normal players only
        hands[seat] += deck[start + offset : end : stride]
    for hand in hands:
        hand.sort()
    return hands, end
