"""What one seat may know, and the actions it may take (docs/design.md §3).

Pure data built by ``referee.game.engine``; the transport turns a :class:`SeatView` into a
request and nothing else. A SeatView holds the seat's own hand and public facts only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Union

from referee.errors import ConfigError
from referee.game.cards import Card, Suit, parse_card, parse_suit
from referee.game.rules import Rules


class SeatStatus(Enum):
    """A seat's standing in the game (rules.md R17)."""

    IN = "in"
    DOG = "dog"  # in on the dog's life: one card this round (R17c, R18)
    OUT = "out"  # knocked out


class DecisionKind(Enum):
    """What a seat is asked to decide."""

    PLAY = "play"  # play a card to the current trick (a dog may also pass)
    CHOOSE_TRUMP = "choose_trump"  # name trump for the round (R8)


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` to the current trick."""

    card: Card

    def __str__(self) -> str:
        return str(self.card)


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    """Name trump for the round; ``suit=None`` declares no trump (variant ``allow_no_trump``)."""

    suit: Suit | None

    def __str__(self) -> str:
        return "trump " + (self.suit.letter if self.suit is not None else "NT")


@dataclass(frozen=True, slots=True)
class Pass:
    """The dog's-life holder does not play its card on this trick (rules.md R18)."""

    def __str__(self) -> str:
        return "pass"


Action = Union[Play, ChooseTrump, Pass]

def format_action(action: Action) -> str:
    """Record text form of an action: ``"AS"``, ``"trump H"``, ``"trump NT"``, ``"pass"``.

    >>> [format_action(action) for action in (Play(parse_card("AS")), ChooseTrump(Suit.HEARTS), ChooseTrump(None), Pass())]
    ['AS', 'trump H', 'trump NT', 'pass']
    """
    return str(action)


def parse_action(text: str) -> Action:
    """Inverse of :func:`format_action` (case-insensitive): ``"AS"`` -> Play(AS),
    ``"trump H"`` -> ChooseTrump(HEARTS), ``"trump NT"`` -> ChooseTrump(None), ``"pass"`` -> Pass().

    Raises ConfigError naming the bad text.

    >>> parse_action("10d"), parse_action("trump h"), parse_action("PASS")
    (Play(card=Card(TD)), ChooseTrump(suit=<Suit.HEARTS: 1>), Pass())
    >>> format_action(parse_action("trump nt"))
    'trump NT'
    """
    words = text.split()
    if len(words) == 1 and words[0].lower() == "pass":
        return Pass()
    if len(words) == 2 and words[0].lower() == "trump":
        if words[1].upper() == "NT":
            return ChooseTrump(None)
        if len(words[1]) == 1 and words[1].upper() in "SHDC":
            return ChooseTrump(parse_suit(words[1]))
    if len(words) == 1:
        try:
            return Play(parse_card(words[0]))
        except ConfigError:
            pass
    raise ConfigError(f"bad action {text!r}: expected a card (e.g. 'AS'), 'trump S|H|D|C|NT' or 'pass'")


@dataclass(frozen=True, slots=True)
class TrickPlay:
    """One seat's turn in a trick: a card, or ``None`` for a dog's pass.

    ``face_down``: a dog's card committed face down (``dog_play = "first_trick"``,
    docs/rules.md W24). Seats other than the dog see ``card`` None until the trick is
    complete; the dog's own view and completed tricks hold the card.
    """

    seat: int
    card: Card | None
    face_down: bool = False


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led it, the plays in order, and (once complete) who won it (R13)."""

    leader: int
    plays: tuple[TrickPlay, ...]
    winner: int | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything seat ``seat`` may know when asked to decide (docs/design.md §3).

    ``trump`` is the trump suit, or None when it is not yet named or the round is
    no-trump (then ``no_trump`` is True). ``turn_up`` is round 1's turned-up card (R7).
    ``decision`` is what this seat is asked now (None if it is not this seat's turn)
    and ``legal`` the actions it may take, in a fixed order (cards in deck order, then
    pass; suits in suit order, then no trump).

    >>> from referee.game.engine import Game
    >>> from referee.game.rules import Rules
    >>> game = Game(3, Rules(), seed=2)
    >>> view = game.view(game.to_act)
    >>> view.seat, view.round_number, view.hand_size, str(view.turn_up), view.trump
    (2, 1, 7, 'KD', <Suit.DIAMONDS: 2>)
    >>> " ".join(str(card) for card in view.hand)
    '5H JH KH 2D 3D 4D 5C'
    >>> game.apply(2, Play(parse_card("5C")))  # seat 2 leads a club: seat 0 must follow (R12)
    >>> view = game.view(0)
    >>> view.led_suit, [str(action) for action in view.legal]
    (<Suit.CLUBS: 3>, ['3C', '8C', 'TC'])
    """

    game_id: str
    seat: int
    num_seats: int
    rules: Rules
    status: tuple[SeatStatus, ...]
    dealer: int
    round_number: int  # 1-based
    hand_size: int  # cards dealt to a normal player this round (R3)
    trump: Suit | None
    no_trump: bool
    turn_up: Card | None
    trump_chooser: int | None  # who names trump this round (None in round 1)
    hand: tuple[Card, ...]
    current_trick: Trick | None
    completed_tricks: tuple[Trick, ...]  # this round's
    tricks_won: tuple[int, ...]  # this round, per seat
    dog_life_used: bool
    decision: DecisionKind | None
    legal: tuple[Action, ...]
    to_play: tuple[int, ...] = ()  # the seats still to act in the current trick, in order; () while trump is chosen

    @property
    def trick_number(self) -> int:
        """1-based number of the trick being played (the request's ``trick_number`` is 0
        while trump is being chosen)."""
        return len(self.completed_tricks) + 1

    @property
    def led_suit(self) -> Suit | None:
        """The suit of the first card played face up to the current trick (a face-down
        card leads no suit: docs/rules.md W24), None before it."""
        if self.current_trick is None:
            return None
        for play in self.current_trick.plays:
            if play.card is not None and not play.face_down:
                return play.card.suit
        return None


def fallback_action(view: SeatView) -> Action:
    """The move the referee plays for a faulting bot (docs/design.md §5): deterministic
    and deliberately weak, so that a fault never pays.

    Play: the lowest legal card (by rank, then suit order); a dog passes whenever it may.
    Trump: the suit the seat holds fewest of (ties by suit order), never no trump. (The
    natural choices, the suit held most of and a dog playing its card, beat a random
    player: ``tests/faults/test_never_pays.py``.) Raises ValueError when the view asks
    nothing.

    >>> from referee.game.engine import Game
    >>> from referee.game.rules import Rules
    >>> game = Game(3, Rules(), seed=2)
    >>> game.apply(2, Play(parse_card("5C")))  # seat 2 leads a club; seat 0 holds 3C 8C TC
    >>> fallback_action(game.view(0))
    Play(card=Card(3C))
    >>> fallback_action(game.view(1))  # not seat 1's turn
    Traceback (most recent call last):
    ValueError: seat 1 has no decision to make
    """
    if view.decision is DecisionKind.CHOOSE_TRUMP:
        counts = {suit: 0 for suit in Suit}
        for card in view.hand:
            counts[card.suit] += 1
        fewest = min(Suit, key=lambda suit: (counts[suit], suit.value))
        return ChooseTrump(fewest)
    if any(type(action) is Pass for action in view.legal):
        return Pass()
    cards = [action for action in view.legal if isinstance(action, Play)]
    if cards:
        return min(cards, key=lambda action: (action.card.rank, action.card.suit))
    if view.legal:
        return view.legal[0]
    raise ValueError(f"seat {view.seat} has no decision to make")



def why_illegal(view: SeatView, action: Action) -> str:
    """Why ``action`` is not one of ``view.legal``, in the game's words, for the fault's
    detail: a card not in the hand (rules.md R15), one that fails to follow suit (R12), a
    pass that is not a dog's or comes on its last trick (R18), a no-trump call the rules do
    not allow (R8), else ``"<action> is not legal here"``.

    >>> from referee.game.engine import Game
    >>> from referee.game.rules import Rules
    >>> game = Game(3, Rules(), seed=2)
    >>> game.apply(2, Play(parse_card("5C")))  # seat 2 leads a club; seat 0 holds 3C 8C TC
    >>> view = game.view(0)
    >>> why_illegal(view, Play(parse_card("AS")))
    'AS is not in your hand'
    >>> why_illegal(view, Play(parse_card("KS")))
    'KS does not follow suit: you hold C (3C 8C TC), rules.md R12'
    >>> why_illegal(view, Pass())
    'pass: only a dog may pass, rules.md R18'
    """
    shown = format_action(action)
    if isinstance(action, Play) and view.decision is DecisionKind.PLAY:
        if action.card not in view.hand:
            return f"{shown} is not in your hand"
        led = view.led_suit
        held = [card for card in view.hand if card.suit == led]
        if led is not None and held:
            return f"{shown} does not follow suit: you hold {led.letter} ({' '.join(map(str, held))}), rules.md R12"
    if isinstance(action, Pass) and view.decision is DecisionKind.PLAY:
        if view.status[view.seat] is not SeatStatus.DOG:
            return f"{shown}: only a dog may pass, rules.md R18"
        if view.rules.dog_play == "first_trick":
            return f"{shown}: under dog_play = first_trick a dog plays its card on the first trick, rules.md §2"
        return f"{shown}: a dog may not pass on the last trick of the round, rules.md R18"
    if isinstance(action, ChooseTrump) and action.suit is None and not view.rules.allow_no_trump:
        return f"{shown}: no trump is not allowed (allow_no_trump = false), rules.md R8"
    return f"{shown} is not legal here"


# --- public events (docs/design.md §4: sent to each seat since its last request) ---------


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round was dealt (R3-R7). ``status`` is each seat's standing for this round."""

    round_number: int
    dealer: int
    hand_size: int
    status: tuple[SeatStatus, ...]
    turn_up: Card | None  # round 1 only (R7)
    trump_chooser: int | None  # rounds 2+ (R9, R10)


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    """Trump for the round: the turn-up's suit in round 1 (``seat`` None), else the chooser's."""

    seat: int | None
    suit: Suit | None  # None = no trump


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """``seat`` played ``card``; a dog's card committed face down (docs/rules.md W24) is
    public as ``card`` None and ``face_down`` True, and shown by :class:`CardRevealed`
    when its trick is complete."""

    seat: int
    card: Card | None
    face_down: bool = False


@dataclass(frozen=True, slots=True)
class CardRevealed:
    """A face-down card turned up as its trick completes, before the trick's TrickWon
    (docs/rules.md W24)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Passed:
    """A dog did not play on this trick (R18)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    seat: int
    trick_number: int  # 1-based within the round


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """End of a round (R17): tricks per seat, who was knocked out, who got the dog's life,
    and who forfeited (docs/design.md §5: knocked out by the referee, not by play)."""

    round_number: int
    tricks_won: tuple[int, ...]
    knocked_out: tuple[int, ...]
    dogs: tuple[int, ...]
    forfeited: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GameEnded:
    winner: int | None
    placements: tuple[int, ...]


Event = Union[RoundStarted, TrumpChosen, CardPlayed, CardRevealed, Passed, TrickWon, RoundEnded, GameEnded]
