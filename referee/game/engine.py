"""The pure rules engine (rules.md §1, variants §2, forfeits docs/design.md §5).

A game of four seats, each playing its first legal action:

>>> from referee.game.rules import Rules
>>> game = Game(num_seats=4, rules=Rules(), seed=123, game_id="g1")
>>> while not game.over:
...     seat = game.to_act
...     view = game.view(seat)  # SeatView: own hand + public facts + legal actions
...     game.apply(seat, view.legal[0])  # raises IllegalAction, state unchanged
>>> game.outcome  # seats 0 and 2 knocked out in round 2 share third place
Outcome(winner=3, placements=(3, 2, 3, 1), knocked_out_round=(2, 5, 2, None), forfeited=(False, False, False, False))
>>> game.events[-1]  # game.events: the public log, list[Event]
GameEnded(winner=3, placements=(3, 2, 3, 1))
>>> len(game.rounds), len(game.rounds[0].deck)  # a RoundRecord per round: deck order, hands, tricks
(5, 52)

Deterministic: (num_seats, rules, seed, first_dealer, decks, actions) replays exactly
(:func:`replay`). Randomness comes only from the seed, one generator per purpose and
round (``referee.game.dealing``, ``referee.game.round_end``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

from referee.errors import ConfigError, IllegalAction
from referee.game.cards import CARDS, Card, Suit
from referee.game.dealing import CARD_INDEX, check_decks, deal_positions, draw_first_dealer, next_in, shuffled_positions
from referee.game.round_end import (
    dog_life_available,
    pick_trump_chooser,
    placements,
    required_tricks,
    resolve_round,
)
from referee.game.rules import MAX_PLAYERS, Rules
from referee.game.views import (
    Action,
    CardPlayed,
    CardRevealed,
    ChooseTrump,
    DecisionKind,
    Event,
    GameEnded,
    Pass,
    Passed,
    Play,
    RoundEnded,
    RoundStarted,
    SeatStatus,
    SeatView,
    Trick,
    TrickPlay,
    TrickWon,
    TrumpChosen,
)

_PLAYS: tuple[Play, ...] = tuple(Play(card) for card in CARDS)
"""``_PLAYS[i]`` plays ``CARDS[i]``: the engine keeps cards as their positions in canonical order."""
_SUIT_OF: tuple[int, ...] = tuple(card.suit.value for card in CARDS)
"""``_SUIT_OF[i]``: the suit of ``CARDS[i]``, by value (a hand in canonical order keeps a suit together)."""
_PASS = Pass()
_SUIT_CHOICES: tuple[ChooseTrump, ...] = tuple(ChooseTrump(suit) for suit in Suit)
_ALL_CHOICES: tuple[ChooseTrump, ...] = (*_SUIT_CHOICES, ChooseTrump(None))
_IN, _DOG, _OUT = SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT
_PLAY, _CHOOSE_TRUMP = DecisionKind.PLAY, DecisionKind.CHOOSE_TRUMP
_ROTATIONS: dict[int, tuple[tuple[int, ...], ...]] = {
    seats: tuple(tuple((seat + step) % seats for step in range(seats)) for seat in range(seats))
    for seats in range(1, MAX_PLAYERS + 1)
}
"""``_ROTATIONS[num_seats][seat]``: the seats clockwise from ``seat``, itself first."""
_STALE: Any = object()
"""``Game._current`` when the current trick's Trick is to be rebuilt."""


@dataclass(frozen=True)
class RoundRecord:
    """One round, for the game record (issue 3 §2).

    ``hands`` per seat as dealt, in canonical order (empty for seats out). ``knocked_out``
    holds every seat knocked out at the round's end, forfeiters included; ``forfeited``
    the seats that forfeited this round. ``tricks`` are the completed tricks.
    """

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


class _RoundSnapshot(NamedTuple):
    """A round's facts as the engine holds them, taken once a round (and for
    :attr:`Game.rounds` while the round goes on); :func:`_to_record` makes the RoundRecord
    when the rounds are read. RoundRecord's fields, but ``deck`` as positions in canonical
    order and the seats' ``status`` in place of ``hands`` (dealt again from the deck)."""

    round_number: int
    dealer: int
    hand_size: int
    deck: list[int]  # CARDS[position], in deal order; a new list each round, never changed
    status: tuple[SeatStatus, ...]  # this round's: who was dealt a hand, who a dog's card
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
class RoundStart:
    """A game taken up at the start of round ``round_number`` (rules.md R3-R9): each
    seat's ``status`` for the round, its ``dealer`` (a seat not out, R5), who names trump
    (``trump_chooser``: None in round 1, where the turn-up does, R7; a seat not out in
    rounds 2+, R8), whether the dog's life was given already (``dog_life_used``, R17c),
    and, per seat, the round it was knocked out in (``knocked_out_round``; None while in,
    0 for "before this round, when is not known"; default: 0 for each seat out).

    What a bot's look-ahead starts from (``referee.botkit.search``): the facts of its view,
    with the deal it made up as the round's deck.
    """

    round_number: int
    dealer: int
    status: tuple[SeatStatus, ...]
    trump_chooser: int | None
    dog_life_used: bool
    knocked_out_round: tuple[int | None, ...] | None = None


@dataclass(frozen=True)
class Outcome:
    """Final result (rules.md R21, docs/design.md §7).

    ``placements[seat]`` is 1 for the winner; seats knocked out in the same round share a
    place (competition ranking: 1, 2, 2, 4); a seat that forfeited in round r is placed
    below every seat knocked out by play in round r. ``knocked_out_round[seat]`` is None
    for the winner. ``winner`` is None only when every seat still in forfeited in the
    same round; they then share the best place.
    """

    winner: int | None
    placements: tuple[int, ...]
    knocked_out_round: tuple[int | None, ...]
    forfeited: tuple[bool, ...]


class Game:
    """One game of Knockout Whist between ``num_seats`` seats (rules.md §1, §2).

    ``seed`` drives every random choice; ``first_dealer`` (None: drawn from the seed,
    R4) and ``decks`` (round number -> 52 cards in deal order, R6 positions) fix parts
    of the game. ``start`` takes the game up at the start of a later round
    (:class:`RoundStart`; its dealer is then the first dealer). Raises ConfigError for a
    bad seat count or rule set (``Rules.check_players``), a bad first dealer, a deck that
    is not a permutation of the 52 cards, or a ``start`` that no game could reach (a
    dealer or trump chooser out, fewer than two seats in).

    >>> from referee.game.rules import Rules
    >>> IN, OUT = SeatStatus.IN, SeatStatus.OUT
    >>> start = RoundStart(round_number=3, dealer=2, status=(IN, OUT, IN), trump_chooser=0, dog_life_used=True)
    >>> game = Game(3, Rules(), seed=5, start=start)  # round 3: 5 cards each, seat 0 names trump
    >>> game.round_number, game.to_act, game.decision(), len(game.view(0).hand), game.view(1).hand
    (3, 0, <DecisionKind.CHOOSE_TRUMP: 'choose_trump'>, 5, ())

    Public attributes: ``to_act`` (seat asked now, None when over), ``over``,
    ``events`` (the public log), ``outcome`` (set when over), ``first_dealer``;
    ``rounds`` is built on access.
    """

    __slots__ = (
        "num_seats", "rules", "seed", "game_id", "first_dealer", "to_act", "over", "events", "outcome",
        "_decks", "_last_round", "_rotations", "_dogs_may_pass", "_trump_choices", "_status", "_status_now",
        "_knocked_out_round", "_forfeited", "_dog_life_used", "_records", "_round", "_decision", "_legal",
        "_dealer", "_hand_size", "_deck", "_hands", "_hand_positions", "_hand_plays", "_round_status",
        "_turn_up", "_trump", "_trump_suit", "_no_trump", "_chooser", "_tricks_won", "_tricks_won_now",
        "_completed", "_round_forfeits", "_orders", "_order", "_order_end", "_position", "_plays",
        "_current", "_lead_seat", "_led", "_best", "_best_seat", "_face_down",
    )  # a fixed layout: faster attribute access than a dict of this many keys

    def __init__(
        self,
        num_seats: int,
        rules: Rules,
        seed: int,
        *,
        game_id: str = "",
        first_dealer: int | None = None,
        decks: Mapping[int, Sequence[Card]] | None = None,
        start: RoundStart | None = None,
    ) -> None:
        rules.check_players(num_seats)
        self.num_seats = num_seats
        self.rules = rules
        self.seed = seed
        self.game_id = game_id
        self._decks = check_decks(decks)
        if start is not None:
            _check_start(start, num_seats)
            first_dealer = start.dealer
        elif first_dealer is None:
            first_dealer = draw_first_dealer(seed, num_seats)
        elif not 0 <= first_dealer < num_seats:
            raise ConfigError(f"first_dealer = {first_dealer}: expected a seat 0-{num_seats - 1}")
        self.first_dealer = first_dealer
        self.to_act: int | None = None
        self.over = False
        self.events: list[Event] = []
        self.outcome: Outcome | None = None
        self._last_round = rules.start_hand_size
        self._rotations = _ROTATIONS[num_seats]
        self._dogs_may_pass = rules.dog_play == "choose_trick"
        self._trump_choices = _ALL_CHOICES if rules.allow_no_trump else _SUIT_CHOICES
        self._status: list[SeatStatus] = [_IN] * num_seats
        self._status_now: tuple[SeatStatus, ...] = tuple(self._status)  # = tuple(self._status), for views
        self._knocked_out_round: list[int | None] = [None] * num_seats
        self._forfeited: list[bool] = [False] * num_seats
        self._dog_life_used = False
        self._records: list[RoundRecord | _RoundSnapshot] = []
        self._round = 0
        self._decision: DecisionKind | None = _CHOOSE_TRUMP  # None once the game is over
        self._legal: tuple[Action, ...] | None = None  # legal_actions(), None until asked
        # per round (set by _start_round)
        self._dealer = first_dealer
        self._hand_size = 0
        self._deck: list[int] = []  # the deck as positions in canonical order (CARDS[i])
        self._hands: list[list[Card]] = []  # per seat, in canonical order
        self._hand_positions: list[list[int]] = []  # per seat: its hand as positions (ascending)
        self._hand_plays: list[list[Play]] = []  # per seat: its hand as Plays
        self._round_status: tuple[SeatStatus, ...] = ()
        self._turn_up: Card | None = None
        self._trump: Suit | None = None
        self._no_trump = False
        self._chooser: int | None = None
        self._tricks_won: list[int] = []
        self._tricks_won_now: tuple[int, ...] = ()  # = tuple(self._tricks_won), for views
        self._completed: tuple[Trick, ...] = ()  # built once each: every view of the round shares them
        self._round_forfeits: set[int] = set()
        self._orders: dict[int, list[int]] = {}  # leader -> _order, while no hand empties
        # per trick (set by _start_trick)
        self._order: list[int] = []  # the seats to act in this trick, in turn
        self._order_end = 0  # len(self._order)
        self._position = 0  # of the seat to act in self._order
        self._plays: tuple[TrickPlay, ...] = ()
        self._current: Trick | None = None  # the current trick for views; _STALE: to rebuild
        self._lead_seat: int | None = None
        self._led = -1  # the suit led, by value; -1 before the first card
        self._trump_suit: int = -1  # self._trump (an IntEnum compares as its value); -1 for none
        self._best = -1  # position of the card winning the trick so far; -1 before the first card
        self._best_seat = -1
        self._face_down: tuple[tuple[int, int], ...] = ()  # (seat, position) of this trick's face-down cards
        chooser = None
        if start is not None:
            self._round = start.round_number - 1
            self._status = list(start.status)
            self._status_now = tuple(self._status)
            self._dog_life_used = start.dog_life_used
            self._knocked_out_round = list(start.knocked_out_round or (0 if standing is _OUT else None for standing in start.status))
            chooser = start.trump_chooser
        self._start_round(first_dealer, chooser)

    # --- queries -------------------------------------------------------------------

    def decision(self) -> DecisionKind | None:
        """What ``to_act`` is asked: PLAY, CHOOSE_TRUMP, or None when the game is over."""
        return self._decision

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of ``to_act``, in order: cards in canonical deck order then
        Pass (rules.md R12, R18); or suits S, H, D, C then no trump (R8). () when over.

        >>> from referee.game.rules import Rules
        >>> game = Game(3, Rules(), seed=2)
        >>> game.to_act, game.decision()
        (2, <DecisionKind.PLAY: 'play'>)
        >>> [str(action) for action in game.legal_actions()]  # seat 2 leads: any card
        ['5H', 'JH', 'KH', '2D', '3D', '4D', '5C']
        >>> game.apply(2, game.legal_actions()[-1])  # 5C
        >>> [str(action) for action in game.legal_actions()]  # seat 0 follows suit
        ['3C', '8C', 'TC']
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[Action, ...]:
        decision = self._decision
        if decision is _PLAY:
            seat = self.to_act
            assert seat is not None
            plays = self._hand_plays[seat]
            legal: tuple[Action, ...] = ()
            led = self._led
            if led >= 0:  # the cards of the suit led, if any (R12): together, as the hand is in order
                positions = self._hand_positions[seat]
                low = bisect_left(positions, 13 * led)
                legal = tuple(plays[low : bisect_left(positions, 13 * led + 13, low)])
            if not legal:
                legal = tuple(plays)
            if self._round_status[seat] is _DOG and self._may_pass():
                legal += (_PASS,)
            return legal
        if decision is _CHOOSE_TRUMP:
            return self._trump_choices
        return ()

    def _may_pass(self) -> bool:
        """A dog holding its card may pass, except on the last trick or under ``first_trick`` (R18)."""
        return self._dogs_may_pass and len(self._completed) + 1 < self._hand_size

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (docs/design.md §3): its own hand and public facts only.

        ``decision`` and ``legal`` are empty unless ``seat`` is to act. Raises ValueError
        for a seat outside 0..num_seats-1.
        """
        to_act = self.to_act
        if seat == to_act and to_act is not None:
            decision = self._decision
            legal = self._legal
            if legal is None:
                legal = self._legal = self._compute_legal()
        elif 0 <= seat < self.num_seats:
            decision, legal = None, ()
        else:
            raise ValueError(f"seat {seat} does not exist: expected 0-{self.num_seats - 1}")
        current = self._current
        if current is _STALE:  # built once per action, shared by every seat's view until the next
            leader = self._lead_seat
            current = self._current = Trick(self._order[self._position] if leader is None else leader, self._plays)
        if self._face_down and current is not None:
            current = _hide_face_down(current, seat)
        return SeatView(
            game_id=self.game_id,
            seat=seat,
            num_seats=self.num_seats,
            rules=self.rules,
            status=self._status_now,
            dealer=self._dealer,
            round_number=self._round,
            hand_size=self._hand_size,
            trump=self._trump,
            no_trump=self._no_trump,
            turn_up=self._turn_up,
            trump_chooser=self._chooser,
            hand=tuple(self._hands[seat]),
            current_trick=current,
            completed_tricks=self._completed,
            tricks_won=self._tricks_won_now,
            dog_life_used=self._dog_life_used,
            decision=decision,
            legal=legal,
            to_play=tuple(self._order[self._position :]) if self._decision is _PLAY else (),
        )

    @property
    def rounds(self) -> list[RoundRecord]:
        """A RoundRecord per finished round, plus the current round while the game goes on."""
        records = self._records
        for index, record in enumerate(records):
            if not isinstance(record, RoundRecord):
                records[index] = _to_record(record)
        built = [record for record in records if isinstance(record, RoundRecord)]
        if not self.over:
            built.append(_to_record(self._snapshot((), (), tuple(sorted(self._round_forfeits)))))
        return built

    @property
    def round_number(self) -> int:
        """The current (or, when over, the last) round, 1-based."""
        return self._round

    # --- actions -------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        """Take ``seat``'s ``action`` (rules.md R8, R12-R18).

        Raises IllegalAction, leaving the state unchanged, when the game is over, the
        seat is not to act, or the action is not legal now (rules.md R15).

        >>> from referee.game.cards import parse_card
        >>> from referee.game.rules import Rules
        >>> game = Game(3, Rules(), seed=2)
        >>> game.apply(2, Play(parse_card("5C")))
        >>> game.apply(0, Play(parse_card("4S")))
        Traceback (most recent call last):
        referee.errors.IllegalAction: seat 0 must follow suit ♣: holds 3C 8C TC; played 4S (rules.md R12)
        >>> game.apply(1, Play(parse_card("3S")))
        Traceback (most recent call last):
        referee.errors.IllegalAction: seat 1 acted out of turn: seat 0 is to play
        """
        if seat == self.to_act and self._decision is _PLAY:
            if type(action) is Play:  # the hot path, inlined: a card (R12, R13)
                card = action.card
                hand = self._hands[seat]
                try:
                    index = hand.index(card)
                except ValueError:
                    raise IllegalAction(f"seat {seat} does not hold {card}: holds {_cards(hand)}") from None
                positions = self._hand_positions[seat]
                position = positions[index]
                suit = _SUIT_OF[position]
                led = self._led
                if suit != led and led >= 0 and _SUIT_OF[positions[bisect_left(positions, 13 * led + 13) - 1]] == led:
                    follow = [held for held in hand if held.suit == led]
                    raise IllegalAction(
                        f"seat {seat} must follow suit {Suit(led).symbol}: holds {_cards(follow)}; "
                        f"played {card} (rules.md R12)"
                    )
                del hand[index], positions[index], self._hand_plays[seat][index]
                if not hand:  # a dog's card, or the round's last trick: later tricks skip this seat
                    self._orders = {}
                if not self._dogs_may_pass and self._round_status[seat] is _DOG:
                    self._play_face_down(seat, position)  # judged when the trick is complete
                else:
                    self._plays += (TrickPlay(seat, card),)
                    self.events.append(CardPlayed(seat, card))
                    best = self._best
                    if best < 0:
                        self._led = suit
                        if self._lead_seat is None:  # else a face-down card led (docs/rules.md W24)
                            self._lead_seat = seat
                        self._best, self._best_seat = position, seat
                    elif (suit == _SUIT_OF[best] and position > best) or (
                        suit == self._trump_suit and _SUIT_OF[best] != suit
                    ):  # higher in the suit (canonical order), or the first trump
                        self._best, self._best_seat = position, seat
            elif type(action) is Pass:
                self._pass(seat)
            else:
                raise IllegalAction(f"seat {seat} must play a card (or a dog pass), not {action}")
            # the next seat in the trick acts, or the trick is complete
            self._legal = None
            self._current = _STALE
            position = self._position = self._position + 1
            if position < self._order_end:
                self.to_act = self._order[position]
            else:
                self._complete_trick()
        elif self._decision is None:
            raise IllegalAction(f"the game is over: seat {seat} may not act ({action})")
        elif seat != self.to_act:
            what = "choose trump" if self._decision is _CHOOSE_TRUMP else "play"
            raise IllegalAction(f"seat {seat} acted out of turn: seat {self.to_act} is to {what}")
        else:
            self._choose_trump(seat, action)

    def forfeit(self, seat: int) -> None:
        """Mark ``seat`` forfeited for the current round (docs/design.md §5).

        It still acts (the referee plays its fallback moves) and its cards count, but at
        the round's end it is knocked out whatever its tricks and placed below the seats
        knocked out by play that round. A no-op for a seat already out or a finished
        game. Raises ValueError for a seat outside 0..num_seats-1.

        >>> from referee.game.rules import Rules
        >>> game = Game(3, Rules(), seed=2)
        >>> game.forfeit(1)
        >>> while not game.over:
        ...     game.apply(game.to_act, game.legal_actions()[0])
        >>> game.rounds[0].forfeited, game.outcome.placements  # out after round 1, placed last
        ((1,), (1, 3, 2))
        """
        if not 0 <= seat < self.num_seats:
            raise ValueError(f"seat {seat} does not exist: expected 0-{self.num_seats - 1}")
        if self._decision is None or self._status[seat] is _OUT:
            return
        self._round_forfeits.add(seat)

    def _choose_trump(self, seat: int, action: Action) -> None:
        if type(action) is not ChooseTrump:
            raise IllegalAction(f"seat {seat} must choose trump (rules.md R8), not play {action}")
        if action.suit is None and not self.rules.allow_no_trump:
            raise IllegalAction(f"seat {seat} may not declare no trump: rules.allow_no_trump is false (rules.md R8)")
        if action.suit is not None and not isinstance(action.suit, Suit):
            raise IllegalAction(f"seat {seat} named {action.suit!r}, which is not a suit")
        self._trump = action.suit
        self._trump_suit = -1 if action.suit is None else action.suit  # an IntEnum: compares as its value
        self._no_trump = action.suit is None
        self.events.append(TrumpChosen(seat, action.suit))
        self._start_trick(self._first_leader())

    def _play_face_down(self, seat: int, position: int) -> None:
        """A dog's card under ``dog_play = "first_trick"`` (docs/rules.md W24): committed face
        down. It leads no suit (the first card played face up does) and is judged, and
        shown to all, when the trick is complete."""
        self._plays += (TrickPlay(seat, CARDS[position], face_down=True),)
        self.events.append(CardPlayed(seat, None, face_down=True))
        self._face_down += ((seat, position),)
        if self._lead_seat is None:
            self._lead_seat = seat

    def _pass(self, seat: int) -> None:
        if self._round_status[seat] is not _DOG:
            raise IllegalAction(f"seat {seat} may not pass: only a dog may pass (rules.md R18)")
        if not self._dogs_may_pass:
            raise IllegalAction(
                f"seat {seat} (dog) may not pass: rules.dog_play = first_trick, it must play on the first trick"
            )
        if len(self._completed) + 1 >= self._hand_size:
            raise IllegalAction(f"seat {seat} (dog) may not pass on the last trick of the round (rules.md R18)")
        self._plays += (TrickPlay(seat, None),)
        self.events.append(Passed(seat))

    # --- flow ----------------------------------------------------------------------

    def _complete_trick(self) -> None:
        """Every seat holding cards has acted: the trick is won (R13), then the next one or the round's end."""
        for seat, position in self._face_down:  # turned up, then judged as if played face up (W24)
            self.events.append(CardRevealed(seat, CARDS[position]))
            best, suit = self._best, _SUIT_OF[position]
            if best >= 0 and ((suit == _SUIT_OF[best] and position > best) or (suit == self._trump_suit and _SUIT_OF[best] != suit)):
                self._best, self._best_seat = position, seat
        self._face_down = ()
        winner = self._best_seat
        assert winner >= 0, "a trick with no card played face up (rules.md R20)"
        assert self._lead_seat is not None
        completed = self._completed = (*self._completed, Trick(self._lead_seat, self._plays, winner))
        won = self._tricks_won
        won[winner] += 1
        self._tricks_won_now = tuple(won)
        number = len(completed)
        self.events.append(TrickWon(winner, number))
        if number == self._hand_size:
            self._end_round()
        else:
            self._start_trick(winner)

    def _start_trick(self, leader: int) -> None:
        """Start a trick led by ``leader``, or by the next seat clockwise holding cards (R14)."""
        order = self._orders.get(leader)
        if order is None:
            hands = self._hands
            order = self._orders[leader] = [seat for seat in self._rotations[leader] if hands[seat]]
        self._order = order
        self._order_end = len(order)
        self._position = 0
        self._plays = ()
        self._current = _STALE
        self._lead_seat = None
        self._led = -1
        self._best = -1
        self._best_seat = -1
        self._decision = _PLAY
        self._legal = None
        self.to_act = order[0]

    def _first_leader(self) -> int:
        """Left of the dealer (R11), or the trump chooser under ``first_lead`` in rounds 2+."""
        if self._chooser is not None and self.rules.first_lead == "trump_chooser":
            return self._chooser
        return next_in(self._dealer, self._status)

    def _hand_size_of(self, round_number: int) -> int:
        """h_r (rules.md R3): start_hand_size, then one fewer per round; 1 in tiebreak deals."""
        return max(self._last_round + 1 - round_number, 1)

    def _start_round(self, dealer: int, chooser: int | None) -> None:
        self._round += 1
        round_number = self._round
        self._hand_size = self._hand_size_of(round_number)
        fixed = self._decks.get(round_number)
        deck = shuffled_positions(self.seed, round_number) if fixed is None else [CARD_INDEX[card] for card in fixed]
        hands, dealt = deal_positions(deck, dealer, self._status, self._hand_size)
        self._hand_positions = hands
        self._hands = []
        self._hand_plays = []
        for hand in hands:
            self._hands.append([CARDS[position] for position in hand])
            self._hand_plays.append([_PLAYS[position] for position in hand])
        self._deck = deck
        self._dealer = dealer
        self._round_status = tuple(self._status)
        self._chooser = chooser
        self._trump = None
        self._trump_suit = -1
        self._no_trump = False
        self._turn_up = None
        self._tricks_won = [0] * self.num_seats
        self._tricks_won_now = tuple(self._tricks_won)
        self._completed = ()
        self._round_forfeits = set()
        self._orders = {}
        self._plays = ()
        if round_number == 1:
            self._turn_up = CARDS[deck[dealt] if self.rules.turn_up == "top" else deck[len(deck) - 1]]
        self.events.append(
            RoundStarted(round_number, dealer, self._hand_size, self._round_status, self._turn_up, chooser)
        )
        if self._turn_up is not None:
            self._trump = self._turn_up.suit
            self._trump_suit = self._trump
            self.events.append(TrumpChosen(None, self._trump))
            self._start_trick(self._first_leader())
        else:
            self._decision = _CHOOSE_TRUMP
            self._legal = None
            self._current = None
            self.to_act = chooser

    def _end_round(self) -> None:
        """rules.md R16, R17 (and docs/design.md §5 forfeits): knock out, give dogs' lives, go on."""
        round_number = self._round
        result = resolve_round(
            self._round_status,
            self._tricks_won,
            self._round_forfeits,
            required_tricks(self.rules, round_number, self._hand_size, self._last_round),
            dog_life_available(self.rules, round_number, self._last_round, self._dog_life_used),
            strict=self.rules.required_tricks == "strict",
        )
        for seat in result.survivors:
            self._status[seat] = _IN
        for seat in result.dogs:
            self._status[seat] = _DOG
            self._dog_life_used = True
        for seat in result.knocked_out + result.forfeited:
            self._status[seat] = _OUT
            self._knocked_out_round[seat] = round_number
        for seat in result.forfeited:
            self._forfeited[seat] = True
        self._status_now = tuple(self._status)
        knocked_out = tuple(sorted(result.knocked_out + result.forfeited))
        self.events.append(
            RoundEnded(round_number, self._tricks_won_now, knocked_out, result.dogs, result.forfeited)
        )
        self._records.append(self._snapshot(knocked_out, result.dogs, result.forfeited))
        still_in = sorted(result.survivors + result.dogs)  # every seat not out
        if len(still_in) <= 1:
            self._finish(still_in[0] if still_in else None)
            return
        chooser = pick_trump_chooser(
            self.rules,
            self.seed,
            round_number + 1,
            self._tricks_won,
            still_in,
            self._dealer,
            self._chooser,
            tiebreak=round_number >= self._last_round,
        )
        self._start_round(next_in(self._dealer, self._status), chooser)

    def _finish(self, winner: int | None) -> None:
        """rules.md R17d/e, R21: the game is over."""
        self._decision = None
        self.over = True
        self.to_act = None
        self._legal = None
        self._current = None
        self._order = []
        self._order_end = 0
        self._position = 0
        places = placements(self._knocked_out_round, self._forfeited, winner)
        self.outcome = Outcome(winner, places, tuple(self._knocked_out_round), tuple(self._forfeited))
        self.events.append(GameEnded(winner, places))

    def _snapshot(
        self, knocked_out: tuple[int, ...], dogs: tuple[int, ...], forfeited: tuple[int, ...]
    ) -> _RoundSnapshot:
        """The current round's facts, cheap to take; made a RoundRecord on demand."""
        return _RoundSnapshot(
            round_number=self._round,
            dealer=self._dealer,
            hand_size=self._hand_size,
            deck=self._deck,
            status=self._round_status,
            turn_up=self._turn_up,
            trump=self._trump,
            no_trump=self._no_trump,
            trump_chooser=self._chooser,
            tricks=self._completed,
            tricks_won=self._tricks_won_now,
            knocked_out=knocked_out,
            dogs=dogs,
            forfeited=forfeited,
        )


def _to_record(snapshot: _RoundSnapshot) -> RoundRecord:
    """The RoundRecord of a snapshot: its deck as cards, its hands dealt again from the deck."""
    hands, _ = deal_positions(snapshot.deck, snapshot.dealer, snapshot.status, snapshot.hand_size)
    return RoundRecord(
        round_number=snapshot.round_number,
        dealer=snapshot.dealer,
        hand_size=snapshot.hand_size,
        deck=itemgetter(*snapshot.deck)(CARDS),
        hands=tuple(tuple(CARDS[position] for position in hand) for hand in hands),
        turn_up=snapshot.turn_up,
        trump=snapshot.trump,
        no_trump=snapshot.no_trump,
        trump_chooser=snapshot.trump_chooser,
        tricks=snapshot.tricks,
        tricks_won=snapshot.tricks_won,
        knocked_out=snapshot.knocked_out,
        dogs=snapshot.dogs,
        forfeited=snapshot.forfeited,
    )


def _check_start(start: RoundStart, num_seats: int) -> None:
    """Raise ConfigError unless a game of ``num_seats`` can be at ``start``:
    a status per seat, two or more seats in, the dealer and the trump chooser in (R5, R9),
    a chooser in rounds 2+ and none in round 1 (R7, R8), a round number from 1, and a
    knocked-out round for each seat out (none for a seat in)."""
    status = start.status
    if len(status) != num_seats:
        raise ConfigError(f"round start: {len(status)} seat statuses for {num_seats} seats")
    if sum(standing is not _OUT for standing in status) < 2:
        raise ConfigError("round start: fewer than two seats are still in: the game is over (rules.md R17d)")
    if start.round_number < 1:
        raise ConfigError(f"round start: round {start.round_number}: rounds are numbered from 1")
    if not 0 <= start.dealer < num_seats or status[start.dealer] is _OUT:
        raise ConfigError(f"round start: dealer {start.dealer} is not a seat still in (rules.md R5)")
    chooser = start.trump_chooser
    if start.round_number == 1:
        if chooser is not None:
            raise ConfigError("round start: round 1's trump is the turn-up's suit: no trump chooser (rules.md R7)")
    elif chooser is None or not 0 <= chooser < num_seats or status[chooser] is _OUT:
        raise ConfigError(f"round start: round {start.round_number} needs a trump chooser still in, not {chooser} (rules.md R8)")
    out_round = start.knocked_out_round
    if out_round is not None and (
        len(out_round) != num_seats or any((when is None) != (standing is not _OUT) for when, standing in zip(out_round, status))
    ):
        raise ConfigError("round start: knocked_out_round needs a round for each seat out and None for each seat in")


def _hide_face_down(trick: Trick, seat: int) -> Trick:
    """``trick`` as ``seat`` sees it: other seats' face-down cards without their card
    (docs/rules.md W24)."""
    plays = tuple(TrickPlay(play.seat, None, True) if play.face_down and play.seat != seat else play for play in trick.plays)
    return Trick(trick.leader, plays, trick.winner)


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)


def replay(
    num_seats: int,
    rules: Rules,
    seed: int,
    first_dealer: int | None,
    decks: Mapping[int, Sequence[Card]] | None,
    actions: Sequence[tuple[int, Action]],
    game_id: str = "",
    *,
    forfeits: Iterable[tuple[int, int]] = (),
) -> Game:
    """Rebuild a game from its record (docs/design.md §2): apply ``actions`` ((seat, action) in
    order) to a fresh Game. ``forfeits`` are (action index, seat): the seat forfeits just
    before action ``index`` is applied (``len(actions)``: after the last).

    Raises ConfigError for a bad setup and IllegalAction (naming the action's index)
    when the record does not replay.

    >>> from referee.game.rules import Rules
    >>> game = Game(3, Rules(), seed=2)
    >>> actions = []
    >>> while not game.over:
    ...     actions.append((game.to_act, game.legal_actions()[-1]))
    ...     game.apply(*actions[-1])
    >>> again = replay(3, Rules(), 2, None, None, actions)
    >>> again.outcome == game.outcome, again.events == game.events
    (True, True)
    """
    game = Game(num_seats, rules, seed, game_id=game_id, first_dealer=first_dealer, decks=decks)
    pending: dict[int, list[int]] = {}
    for index, seat in forfeits:
        pending.setdefault(index, []).append(seat)
    for index, (seat, action) in enumerate(actions):
        for forfeiter in pending.get(index, ()):
            game.forfeit(forfeiter)
        try:
            game.apply(seat, action)
        except IllegalAction as error:
            raise IllegalAction(f"action {index} ({seat}: {action}) does not replay: {error}") from None
    for forfeiter in pending.get(len(actions), ()):
        game.forfeit(forfeiter)
    return game
