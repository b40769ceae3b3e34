"""Cards, suits, ranks and the deck (rules.md R2).

Pure: no I/O, no clock. Cards are interned: ``Card(rank, suit)`` is a NamedTuple, and
``CARDS`` holds the 52 of them in canonical deck order (suit S H D C, then rank 2..A).
Text form is rank then suit letter, e.g. ``AS``, ``TD``, ``7C``.

>>> len(CARDS), CARDS[0], CARDS[-1]
(52, Card(2S), Card(AC))
>>> parse_card("QH").suit
<Suit.HEARTS: 1>
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from referee.errors import ConfigError


class Suit(IntEnum):
    """The four suits. The value order (S, H, D, C) is the tie-break "suit order"
    (docs/design.md §5 fallback); suits have no order in play (rules.md R2)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self.value]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self.value]


class Rank(IntEnum):
    """Ranks, valued 2..14 so that a higher value beats a lower one (rules.md R2)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        return "23456789TJQKA"[self.value - 2]


class Card(NamedTuple):
    """One card: ``Card(Rank.ACE, Suit.SPADES)`` prints as ``AS``.

    >>> card = Card(Rank.ACE, Suit.SPADES)
    >>> str(card), card.pretty, card.rank > Rank.KING
    ('AS', 'A♠', True)
    """

    rank: Rank
    suit: Suit

    def __str__(self) -> str:
        name = _NAMES.get(self)  # a table: an enum's .value is a slow property lookup
        return name if name is not None else self.rank.letter + self.suit.letter

    def __repr__(self) -> str:
        return f"Card({self})"

    @property
    def pretty(self) -> str:
        """Rank letter and suit symbol, e.g. ``A♠``."""
        return self.rank.letter + self.suit.symbol


CARDS: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
"""The 52 cards in canonical order: spades 2..A, hearts, diamonds, clubs."""

_NAMES: dict[Card, str] = {card: card.rank.letter + card.suit.letter for card in CARDS}
_BY_NAME = {str(card): card for card in CARDS}
_SUIT_BY_LETTER = {suit.letter: suit for suit in Suit}


def parse_card(text: str) -> Card:
    """``"AS"`` / ``"td"`` / ``"10H"`` -> Card. Raises ConfigError naming the bad text.

    >>> parse_card("AS"), parse_card("td"), parse_card("10H")
    (Card(AS), Card(TD), Card(TH))
    >>> parse_card("1S")
    Traceback (most recent call last):
    referee.errors.ConfigError: bad card name '1S': expected rank 2-9,T,J,Q,K,A then suit S,H,D,C (e.g. 'AS', 'TD')
    """
    name = text.strip().upper().replace("10", "T")
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ConfigError(f"bad card name {text!r}: expected rank 2-9,T,J,Q,K,A then suit S,H,D,C (e.g. 'AS', 'TD')") from None


def parse_cards(text: str) -> tuple[Card, ...]:
    """``"AS KH 7C"`` -> (AS, KH, 7C): cards separated by white space. Raises ConfigError.

    >>> parse_cards("AS KH 7C")
    (Card(AS), Card(KH), Card(7C))
    """
    return tuple(parse_card(part) for part in text.split())


def parse_suit(text: str) -> Suit:
    """``"H"`` or ``"hearts"`` -> Suit.HEARTS. Raises ConfigError.

    >>> parse_suit("H"), parse_suit("clubs")
    (<Suit.HEARTS: 1>, <Suit.CLUBS: 3>)
    """
    key = text.strip().upper()
    if key in _SUIT_BY_LETTER:
        return _SUIT_BY_LETTER[key]
    try:
        return Suit[key]
    except KeyError:
        raise ConfigError(f"bad suit {text!r}: expected one of S, H, D, C") from None
