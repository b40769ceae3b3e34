"""The pure rules engine (rules.md §1, variants §2, forfeits DESIGN.md §5).

    game = Game(num_seats=4, rules=Rules(), seed=123, game_id="g1")
    while not game.over:
        seat = game.to_act
        view = game.view(seat)            # SeatView: own hand + public facts + legal actions
        game.apply(seat, view.legal[0])   # raises IllegalAction, state unchanged
    game.outcome                          # Outcome
    game.events                           # list[Event], the public log
    game.rounds                           # list[RoundRecord], deck order per round etc.

Deterministic: (num_seats, rules, seed, first_dealer, decks, actions) replays exactly
(:func:`replay`). Randomness comes only from the seed, one generator per purpose and
round (``referee.dealing``, ``referee.round_end``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from enum import Enum

from referee.cards import CARDS, Card, Suit
from referee.dealing import check_decks, deal, draw_first_dealer, next_in, shuffled_deck
from referee.errors import ConfigError, IllegalAction
from referee.round_end import (
    RoundResult,
    dog_life_available,
    pick_trump_chooser,
    placements,
    required_tricks,
    resolve_round,
)
from referee.rules import MAX_PLAYERS, Rules
from referee.views import (
    Action,
    CardPlayed,
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
    build_seat_view,
)

_PLAYS: dict[Card, Play] = {card: Play(card) for card in CARDS}
_PASS = Pass()
_SUIT_CHOICES: tuple[ChooseTrump, ...] = tuple(ChooseTrump(suit) for suit in Suit)
_NO_TRUMP = ChooseTrump(None)
_IN, _DOG, _OUT = SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT
# Plays and their events are immutable values from a small set: built once, shared by
# every game (building a frozen dataclass per play cost more than the play itself).
_TRICK_PLAYS: tuple[dict[Card | None, TrickPlay], ...] = tuple(
    {card: TrickPlay(seat, card) for card in (*CARDS, None)} for seat in range(MAX_PLAYERS)
)
_CARDS_PLAYED: tuple[dict[Card, CardPlayed], ...] = tuple(
    {card: CardPlayed(seat, card) for card in CARDS} for seat in range(MAX_PLAYERS)
)
_PASSES: tuple[Passed, ...] = tuple(Passed(seat) for seat in range(MAX_PLAYERS))
_RawTrick = tuple[int, tuple[TrickPlay, ...], int]
"""A completed trick as kept in play: leader, plays, winner."""


class _Phase(Enum):
    TRUMP = "trump"
    PLAY = "play"
    OVER = "over"


_TRUMP_PHASE, _PLAY_PHASE, _OVER_PHASE = _Phase.TRUMP, _Phase.PLAY, _Phase.OVER
_PLAY_DECISION, _TRUMP_DECISION = DecisionKind.PLAY, DecisionKind.CHOOSE_TRUMP


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


@dataclass(frozen=True)
class Outcome:
    """Final result (rules.md R21, DESIGN.md §7).

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
    of the game. Raises ConfigError for a bad seat count or rule set
    (``Rules.check_players``), a bad first dealer or a deck that is not a permutation
    of the 52 cards.

    Public attributes: ``to_act`` (seat asked now, None when over), ``over``,
    ``events`` (the public log), ``outcome`` (set when over), ``first_dealer``;
    ``rounds`` is built on access.
    """

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
        rules.check_players(num_seats)
        self.num_seats = num_seats
        self.rules = rules
        self.seed = seed
        self.game_id = game_id
        self._decks = check_decks(decks)
        if first_dealer is None:
            first_dealer = draw_first_dealer(seed, num_seats)
        elif not 0 <= first_dealer < num_seats:
            raise ConfigError(f"first_dealer = {first_dealer}: expected a seat 0-{num_seats - 1}")
        self.first_dealer = first_dealer
        self.to_act: int | None = None
        self.over = False
        self.events: list[Event] = []
        self.outcome: Outcome | None = None
        self._last_round = rules.start_hand_size
        self._rotations = [[(seat + step) % num_seats for step in range(num_seats)] for seat in range(num_seats)]
        self._status: list[SeatStatus] = [_IN] * num_seats
        self._status_now: tuple[SeatStatus, ...] = tuple(self._status)  # = tuple(self._status), for views
        self._knocked_out_round: list[int | None] = [None] * num_seats
        self._forfeited: list[bool] = [False] * num_seats
        self._dog_life_used = False
        self._records: list[RoundRecord | _RoundSnapshot] = []
        self._round = 0
        self._phase = _Phase.TRUMP
        self._legal: tuple[Action, ...] | None = None
        # per round (set by _start_round)
        self._dealer = first_dealer
        self._hand_size = 0
        self._deck: tuple[Card, ...] = ()
        self._hands: list[list[Card]] = []
        self._dealt: tuple[tuple[Card, ...], ...] = ()
        self._round_status: tuple[SeatStatus, ...] = ()
        self._turn_up: Card | None = None
        self._trump: Suit | None = None
        self._no_trump = False
        self._chooser: int | None = None
        self._tricks_won: list[int] = []
        self._tricks_won_now: tuple[int, ...] = ()  # = tuple(self._tricks_won), for views
        self._completed: list[_RawTrick] = []
        self._completed_tricks: list[Trick] = []  # self._completed as Tricks, built on demand
        self._completed_now: tuple[Trick, ...] = ()  # = tuple(self._completed_tricks) once all are built
        self._round_forfeits: set[int] = set()
        # per trick (set by _start_trick)
        self._order: list[int] = []
        self._position = 0
        self._plays: list[TrickPlay] = []
        self._lead_seat: int | None = None
        self._led: Suit | None = None
        self._best_seat = -1
        self._best_card: Card | None = None
        self._start_round(first_dealer, None)

    # --- queries -------------------------------------------------------------------

    def decision(self) -> DecisionKind | None:
        """What ``to_act`` is asked: PLAY, CHOOSE_TRUMP, or None when the game is over."""
        phase = self._phase
        if phase is _PLAY_PHASE:
            return _PLAY_DECISION
        if phase is _TRUMP_PHASE:
            return _TRUMP_DECISION
        return None

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of ``to_act``, in order: cards in canonical deck order then
        Pass (rules.md R12, R18); or suits S, H, D, C then no trump (R8). () when over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[Action, ...]:
        phase = self._phase
        if phase is _PLAY_PHASE:
            seat = self.to_act
            assert seat is not None
            hand = self._hands[seat]
            led = self._led
            cards = hand
            if led is not None:
                cards = [card for card in hand if card.suit == led] or hand
            legal: tuple[Action, ...] = tuple(map(_PLAYS.__getitem__, cards))
            if self._round_status[seat] is _DOG and self._may_pass():
                legal += (_PASS,)
            return legal
        if phase is _TRUMP_PHASE:
            return _SUIT_CHOICES + (_NO_TRUMP,) if self.rules.allow_no_trump else _SUIT_CHOICES
        return ()

    def _may_pass(self) -> bool:
        """A dog holding its card may pass, except on the last trick or under ``first_trick`` (R18)."""
        return self.rules.dog_play == "choose_trick" and len(self._completed) + 1 < self._hand_size

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (DESIGN.md §3): its own hand and public facts only.

        ``decision`` and ``legal`` are empty unless ``seat`` is to act. Raises ValueError
        for a seat outside 0..num_seats-1.
        """
        if not 0 <= seat < self.num_seats:
            raise ValueError(f"seat {seat} does not exist: expected 0-{self.num_seats - 1}")
        mine = seat == self.to_act
        current = None
        if self._phase is _PLAY_PHASE:
            current = Trick(self._trick_leader(), tuple(self._plays))
        return build_seat_view(
            self.game_id,
            seat,
            self.num_seats,
            self.rules,
            self._status_now,
            self._dealer,
            self._round,
            self._hand_size,
            self._trump,
            self._no_trump,
            self._turn_up,
            self._chooser,
            tuple(self._hands[seat]),
            current,
            self._tricks(),
            self._tricks_won_now,
            self._dog_life_used,
            self.decision() if mine else None,
            self.legal_actions() if mine else (),
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
            built.append(_to_record(self._snapshot(None)))
        return built

    @property
    def round_number(self) -> int:
        """The current (or, when over, the last) round, 1-based."""
        return self._round

    def _trick_leader(self) -> int:
        """Who led the current trick: the first seat to play a card, else the seat to act (R18)."""
        if self._lead_seat is not None:
            return self._lead_seat
        return self._order[self._position]

    def _tricks(self) -> tuple[Trick, ...]:
        """This round's completed tricks as Tricks (built once each, on demand)."""
        built = self._completed_tricks
        if len(built) < len(self._completed):
            for leader, plays, winner in self._completed[len(built) :]:
                built.append(Trick(leader, plays, winner))
            self._completed_now = tuple(built)
        return self._completed_now

    # --- actions -------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        """Take ``seat``'s ``action`` (rules.md R8, R12-R18).

        Raises IllegalAction, leaving the state unchanged, when the game is over, the
        seat is not to act, or the action is not legal now (rules.md R15).
        """
        if seat == self.to_act and self._phase is _PLAY_PHASE:
            if type(action) is Play:
                self._play(seat, action.card)
            elif type(action) is Pass:
                self._pass(seat)
            else:
                raise IllegalAction(f"seat {seat} must play a card (or a dog pass), not {action}")
        elif self._phase is _OVER_PHASE:
            raise IllegalAction(f"the game is over: seat {seat} may not act ({action})")
        elif seat != self.to_act:
            what = "choose trump" if self._phase is _Phase.TRUMP else "play"
            raise IllegalAction(f"seat {seat} acted out of turn: seat {self.to_act} is to {what}")
        else:
            self._choose_trump(seat, action)

    def forfeit(self, seat: int) -> None:
        """Mark ``seat`` forfeited for the current round (DESIGN.md §5).

        It still acts (the referee plays its fallback moves) and its cards count, but at
        the round's end it is knocked out whatever its tricks and placed below the seats
        knocked out by play that round. A no-op for a seat already out or a finished
        game. Raises ValueError for a seat outside 0..num_seats-1.
        """
        if not 0 <= seat < self.num_seats:
            raise ValueError(f"seat {seat} does not exist: expected 0-{self.num_seats - 1}")
        if self._phase is _Phase.OVER or self._status[seat] is _OUT:
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
        self._no_trump = action.suit is None
        self.events.append(TrumpChosen(seat, action.suit))
        self._start_trick(self._first_leader())

    def _play(self, seat: int, card: Card) -> None:
        hand = self._hands[seat]
        if card not in hand:
            raise IllegalAction(f"seat {seat} does not hold {card}: holds {_cards(hand)}")
        led = self._led
        if led is not None and card.suit != led:
            follow = [held for held in hand if held.suit == led]
            if follow:
                raise IllegalAction(
                    f"seat {seat} must follow suit {led.symbol}: holds {_cards(follow)}; played {card} (rules.md R12)"
                )
        hand.remove(card)
        self._plays.append(_TRICK_PLAYS[seat][card])
        self.events.append(_CARDS_PLAYED[seat][card])
        best = self._best_card
        if best is None:
            self._led = card.suit
            self._lead_seat = seat
            self._best_card, self._best_seat = card, seat
        elif (card.suit == best.suit and card.rank > best.rank) or (
            card.suit == self._trump and best.suit != self._trump
        ):
            self._best_card, self._best_seat = card, seat
        self._next_turn()

    def _pass(self, seat: int) -> None:
        if self._round_status[seat] is not _DOG:
            raise IllegalAction(f"seat {seat} may not pass: only a dog may pass (rules.md R18)")
        if self.rules.dog_play != "choose_trick":
            raise IllegalAction(
                f"seat {seat} (dog) may not pass: rules.dog_play = first_trick, it must play on the first trick"
            )
        if len(self._completed) + 1 >= self._hand_size:
            raise IllegalAction(f"seat {seat} (dog) may not pass on the last trick of the round (rules.md R18)")
        self._plays.append(_TRICK_PLAYS[seat][None])
        self.events.append(_PASSES[seat])
        self._next_turn()

    # --- flow ----------------------------------------------------------------------

    def _next_turn(self) -> None:
        """After a card or a pass: the next seat in the trick acts, or the trick is complete."""
        self._legal = None
        self._position += 1
        if self._position < len(self._order):
            self.to_act = self._order[self._position]
        else:
            self._complete_trick()

    def _complete_trick(self) -> None:
        """Every seat holding cards has acted: the trick is won (R13), then the next one or the round's end."""
        winner = self._best_seat
        assert winner >= 0, "a trick with no card played (rules.md R20)"
        assert self._lead_seat is not None
        self._completed.append((self._lead_seat, tuple(self._plays), winner))
        self._tricks_won[winner] += 1
        self._tricks_won_now = tuple(self._tricks_won)
        self.events.append(TrickWon(winner, len(self._completed)))
        if len(self._completed) == self._hand_size:
            self._end_round()
        else:
            self._start_trick(winner)

    def _start_trick(self, leader: int) -> None:
        """Start a trick led by ``leader``, or by the next seat clockwise holding cards (R14)."""
        hands = self._hands
        self._order = [seat for seat in self._rotations[leader] if hands[seat]]
        self._position = 0
        self._plays = []
        self._lead_seat = None
        self._led = None
        self._best_seat = -1
        self._best_card = None
        self._phase = _PLAY_PHASE
        self._legal = None
        self.to_act = self._order[0]

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
        deck = self._decks.get(round_number) or shuffled_deck(self.seed, round_number)
        self._hands, dealt = deal(deck, dealer, self._status, self._hand_size)
        self._dealt = tuple(tuple(hand) for hand in self._hands)
        self._deck = deck
        self._dealer = dealer
        self._round_status = tuple(self._status)
        self._chooser = chooser
        self._trump = None
        self._no_trump = False
        self._turn_up = None
        self._tricks_won = [0] * self.num_seats
        self._tricks_won_now = tuple(self._tricks_won)
        self._completed = []
        self._completed_tricks = []
        self._completed_now = ()
        self._round_forfeits = set()
        self._plays = []
        if round_number == 1:
            self._turn_up = deck[dealt] if self.rules.turn_up == "top" else deck[len(deck) - 1]
        self.events.append(
            RoundStarted(round_number, dealer, self._hand_size, self._round_status, self._turn_up, chooser)
        )
        if self._turn_up is not None:
            self._trump = self._turn_up.suit
            self.events.append(TrumpChosen(None, self._trump))
            self._start_trick(self._first_leader())
        else:
            self._phase = _Phase.TRUMP
            self._legal = None
            self.to_act = chooser

    def _end_round(self) -> None:
        """rules.md R16, R17 (and DESIGN.md §5 forfeits): knock out, give dogs' lives, go on."""
        round_number = self._round
        result = resolve_round(
            self._round_status,
            self._tricks_won,
            self._round_forfeits,
            required_tricks(self.rules, round_number, self._hand_size, self._last_round),
            dog_life_available(self.rules, round_number, self._last_round, self._dog_life_used),
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
            RoundEnded(round_number, tuple(self._tricks_won), knocked_out, result.dogs, result.forfeited)
        )
        self._records.append(self._snapshot(result))
        still_in = [seat for seat in range(self.num_seats) if self._status[seat] is not _OUT]
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
        self._phase = _Phase.OVER
        self.over = True
        self.to_act = None
        self._legal = None
        self._order = []
        self._position = 0
        places = placements(self._knocked_out_round, self._forfeited, winner)
        self.outcome = Outcome(winner, places, tuple(self._knocked_out_round), tuple(self._forfeited))
        self.events.append(GameEnded(winner, places))

    def _snapshot(self, result: RoundResult | None) -> _RoundSnapshot:
        """The current round's facts, cheap to take; made a RoundRecord on demand."""
        return (
            self._round,
            self._dealer,
            self._hand_size,
            self._deck,
            self._dealt,
            self._turn_up,
            self._trump,
            self._no_trump,
            self._chooser,
            tuple(self._completed_tricks) + tuple(self._completed[len(self._completed_tricks) :]),
            tuple(self._tricks_won),
            tuple(sorted(result.knocked_out + result.forfeited)) if result else (),
            result.dogs if result else (),
            result.forfeited if result else tuple(sorted(self._round_forfeits)),
        )


_RoundSnapshot = tuple[Any, ...]
"""RoundRecord's fields in order, except that ``tricks`` may still be raw (``_RawTrick``)."""


def _to_record(snapshot: _RoundSnapshot) -> RoundRecord:
    fields = list(snapshot)
    fields[9] = tuple(trick if isinstance(trick, Trick) else Trick(*trick) for trick in fields[9])
    return RoundRecord(*fields)


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
    """Rebuild a game from its record (DESIGN.md §2): apply ``actions`` ((seat, action) in
    order) to a fresh Game. ``forfeits`` are (action index, seat): the seat forfeits just
    before action ``index`` is applied (``len(actions)``: after the last).

    Raises ConfigError for a bad setup and IllegalAction (naming the action's index)
    when the record does not replay.
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
