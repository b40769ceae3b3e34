"""Scripted situations for ``referee check-bot``: exact positions built with the real
rules engine from stacked decks (``Game(decks=...)``), so each asks one precise
question with a known legal set.

Pure: no I/O. Each builder deals hand-picked cards (:func:`stack_deck`), plays the
earlier decisions with a fixed script or policy, and stops at the decision to ask.
Default rules throughout (rules.md §1), so every bot must handle them; only the last
round with a dog is played with ``dog_life = "any_round"`` (rules.md §2), since under the
defaults a dog plays round 2 only, never the last round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from referee.game.cards import CARDS, Card, Suit, parse_card, parse_cards
from referee.game.dealing import deal
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Action, ChooseTrump, DecisionKind, Event, Pass, Play, SeatStatus, SeatView, parse_action


@dataclass(frozen=True)
class Situation:
    """One scripted question. ``view`` is what ``seat`` is asked at decision
    ``decision_number`` (game-wide, 0-based) of ``game`` (left at that decision);
    ``events`` are all public events so far (the bot has seen none of this game);
    ``rule`` says what a legal answer respects (rules.md section)."""

    key: str
    title: str
    rule: str
    game: Game
    view: SeatView
    events: tuple[Event, ...]
    decision_number: int


Policy = Callable[[SeatView], Action]
Stop = Callable[[SeatView], bool]


def stack_deck(
    hands: Mapping[int, Sequence[Card]],
    *,
    dealer: int,
    status: Sequence[SeatStatus],
    turn_up: Card | None = None,
) -> tuple[Card, ...]:
    """A 52-card deck that deals ``hands[seat]`` to each seat (rules.md R6: one card at a
    time clockwise from left of ``dealer``, a dog only on the first pass), then
    ``turn_up`` at the next position (R7, ``turn_up = "top"``), then the other cards in
    canonical order. Raises ValueError when the hands do not fit the deal."""
    num_seats = len(status)
    order = [(dealer + step) % num_seats for step in range(1, num_seats + 1)]
    order = [seat for seat in order if status[seat] is not SeatStatus.OUT]
    normal = [seat for seat in order if status[seat] is not SeatStatus.DOG]
    hand_size = max(len(hands.get(seat, ())) for seat in normal)
    if any(len(hands.get(seat, ())) != (1 if seat not in normal else hand_size) for seat in order):
        raise ValueError(f"hands do not fit a deal of {hand_size} cards (a dog gets 1): {hands}")
    queues = {seat: list(hands[seat]) for seat in order}
    deck: list[Card] = [queues[seat].pop(0) for seat in order]
    for _ in range(hand_size - 1):
        deck += [queues[seat].pop(0) for seat in normal]
    if turn_up is not None:
        deck.append(turn_up)
    deck += [card for card in CARDS if card not in deck]
    dealt, _ = deal(deck, dealer, status, hand_size)
    for seat in order:
        if sorted(dealt[seat]) != sorted(hands[seat]):
            raise ValueError(f"seat {seat} would be dealt {dealt[seat]}, not {hands[seat]}")
    return tuple(deck)


def highest(view: SeatView, *, dog_passes: bool = True) -> Action:
    """The scripts' policy: trump hearts (nobody holds a heart in the stacked rounds 2+);
    a dog passes while it may (if ``dog_passes``); otherwise the highest legal card
    (rank, then suit order)."""
    if view.decision is DecisionKind.CHOOSE_TRUMP:
        return ChooseTrump(Suit.HEARTS)
    if dog_passes and Pass() in view.legal:
        return Pass()
    cards = [action.card for action in view.legal if isinstance(action, Play)]
    return Play(max(cards, key=lambda card: (card.rank, -card.suit)))


def _drive(game: Game, stop: Stop, policy: Policy = highest, script: Sequence[str] = ()) -> int:
    """Apply ``script`` (actions as text), then ``policy``, until ``stop(view)`` holds for
    the seat to act; return the number of decisions taken. Raises ValueError if the
    game ends first (a broken script)."""
    taken = 0
    pending = list(script)
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if not pending and stop(view):
            return taken
        action = parse_action(pending.pop(0)) if pending else policy(view)
        game.apply(seat, action)
        taken += 1
    raise ValueError("the scripted game ended before the situation arose")


def _situation(
    key: str, title: str, rule: str, game: Game, stop: Stop, script: Sequence[str] = (), policy: Policy = highest
) -> Situation:
    number = _drive(game, stop, policy, script)
    seat = game.to_act
    assert seat is not None
    return Situation(key, title, rule, game, game.view(seat), tuple(game.events), number)


IN, DOG = SeatStatus.IN, SeatStatus.DOG
_TRICKS_GAME = {  # three players, dealer P2, so P0 leads; trump spades (turn-up 5S)
    0: parse_cards("7C AS KS 2D 5D 9H 3S"),
    1: parse_cards("KC 3C 4S 6D TD JH 8S"),
    2: parse_cards("AD KD QD JD 2H 3H 4H"),
}
_DOG_ROUND_1 = {  # P0 takes 4 tricks, P1 3, P2 none: P2 gets the dog's life; trump hearts (turn-up 2H)
    0: parse_cards("AS KS QS JS 2D 3D 4D"),
    1: parse_cards("AD KD QD JD TD 9D 2S"),
    2: parse_cards("2C 3C 4C 5C 6C 7C 8C"),
}
_DOG_ROUND_2 = {  # dealer P0, P0 names trump, P1 leads; P2 is the dog with one card
    0: parse_cards("AS KS QS 2D 3D 4D"),
    1: parse_cards("AD KD QD 2S 3S 4S"),
    2: parse_cards("5C"),
}


_DOG_LEADS_ROUND_1 = {  # P0 takes 4 tricks, P2 3, P1 none: P1, left of round 2's dealer, is a dog that leads
    0: parse_cards("AS KS QS JS 2D 3D 4D"),
    1: parse_cards("2C 3C 4C 5C 6C 7C 8C"),
    2: parse_cards("AD KD QD JD TD 9D 2S"),
}
_DOG_LEADS_ROUND_2 = {  # dealer P0, P0 names trump, the dog P1 leads
    0: parse_cards("AS KS QS 2D 3D 4D"),
    1: parse_cards("5C"),
    2: parse_cards("AD KD QD 2S 3S 4S"),
}
_TWO_DOGS_ROUND_1 = {  # four players: P0 takes 4 tricks, P1 3, P2 and P3 none: two dogs in round 2
    0: parse_cards("AS KS QS JS 2D 3D 4D"),
    1: parse_cards("AD KD QD JD TD 9D 2S"),
    2: parse_cards("2C 3C 4C 5C 6C 7C 8C"),
    3: parse_cards("9C TC JC QC KC AC 5S"),
}
_TWO_DOGS_ROUND_2 = {  # dealer P0, P1 leads, the dog P2 passes, the dog P3 is asked
    0: parse_cards("AS KS QS 2D 3D 4D"),
    1: parse_cards("AD KD QD 2S 3S 4S"),
    2: parse_cards("5C"),
    3: parse_cards("6C"),
}
def _tricks_game(key: str) -> Game:
    deck = stack_deck(_TRICKS_GAME, dealer=2, status=(IN, IN, IN), turn_up=parse_card("5S"))
    return Game(3, Rules(), seed=1, game_id=f"check-{key}", first_dealer=2, decks={1: deck})


def _dog_game(key: str) -> Game:
    decks = {
        1: stack_deck(_DOG_ROUND_1, dealer=2, status=(IN, IN, IN), turn_up=parse_card("2H")),
        2: stack_deck(_DOG_ROUND_2, dealer=0, status=(IN, IN, DOG)),
    }
    return Game(3, Rules(), seed=2, game_id=f"check-{key}", first_dealer=2, decks=decks)


def _dog_leads_game(key: str) -> Game:
    decks = {
        1: stack_deck(_DOG_LEADS_ROUND_1, dealer=2, status=(IN, IN, IN), turn_up=parse_card("2H")),
        2: stack_deck(_DOG_LEADS_ROUND_2, dealer=0, status=(IN, DOG, IN)),
    }
    return Game(3, Rules(), seed=4, game_id=f"check-{key}", first_dealer=2, decks=decks)


def _two_dogs_game(key: str) -> Game:
    decks = {
        1: stack_deck(_TWO_DOGS_ROUND_1, dealer=3, status=(IN, IN, IN, IN), turn_up=parse_card("2H")),
        2: stack_deck(_TWO_DOGS_ROUND_2, dealer=0, status=(IN, IN, DOG, DOG)),
    }
    return Game(4, Rules(), seed=5, game_id=f"check-{key}", first_dealer=3, decks=decks)


def lowest(view: SeatView) -> Action:
    """A script's policy: trump hearts; the lowest legal card (rank, then suit order)."""
    if view.decision is DecisionKind.CHOOSE_TRUMP:
        return ChooseTrump(Suit.HEARTS)
    cards = [action.card for action in view.legal if isinstance(action, Play)]
    return Play(min(cards, key=lambda card: (card.rank, card.suit)))


def _last_round_dog_game(key: str) -> Game:
    """Three players, ``dog_life = "any_round"``: playing their lowest legal card, each
    takes a trick in rounds 1-5 (P0 holds AS and low diamonds, P1 AD and low clubs, P2 AC
    and low spades: each ace takes the trick its owner's low card is led to); in round 6
    P2 takes both tricks, so P0 and P1 play the last round, round 7, as dogs, and P0,
    left of the dealer P2, leads its one trick."""
    decks: dict[int, tuple[Card, ...]] = {}
    for round_number in range(1, 6):  # the dealer passes clockwise from P2 while all are in
        size = 8 - round_number
        hands = {
            0: (parse_card("AS"),) + _lowest_of("D", size - 1),
            1: (parse_card("AD"),) + _lowest_of("C", size - 1),
            2: (parse_card("AC"),) + _lowest_of("S", size - 1),
        }
        turn_up = parse_card("2H") if round_number == 1 else None
        decks[round_number] = stack_deck(hands, dealer=(1 + round_number) % 3, status=(IN, IN, IN), turn_up=turn_up)
    decks[6] = stack_deck({0: parse_cards("AS KS"), 1: parse_cards("2D 3D"), 2: parse_cards("2C 3C")}, dealer=1, status=(IN, IN, IN))
    decks[7] = stack_deck({0: parse_cards("5C"), 1: parse_cards("6C"), 2: parse_cards("AS")}, dealer=2, status=(DOG, DOG, IN))
    return Game(3, Rules(dog_life="any_round"), seed=6, game_id=f"check-{key}", first_dealer=2, decks=decks)


def _lowest_of(suit: str, count: int) -> tuple[Card, ...]:
    return tuple(card for card in CARDS if card.suit.letter == suit)[:count]


def _leading(view: SeatView) -> bool:
    return view.current_trick is None or not view.current_trick.plays


def _after_a_pass(view: SeatView) -> bool:
    return view.current_trick is not None and any(play.card is None and not play.face_down for play in view.current_trick.plays)


def _final_round_game(key: str) -> Game:
    """Two players who both survive every round: P0 holds AS and low diamonds, P1 AD and
    low spades, so each wins at least one trick until the one-card round 7."""
    decks: dict[int, tuple[Card, ...]] = {}
    for round_number in range(1, 8):
        size = 8 - round_number
        dealer = 1 if round_number % 2 else 0
        hands = {
            0: (parse_card("AS"),) + tuple(CARDS[26 : 26 + size - 1]),  # AS + 2D, 3D, ...
            1: (parse_card("AD"),) + tuple(CARDS[0 : size - 1]),  # AD + 2S, 3S, ...
        }
        turn_up = parse_card("2H") if round_number == 1 else None
        decks[round_number] = stack_deck(hands, dealer=dealer, status=(IN, IN), turn_up=turn_up)
    return Game(2, Rules(), seed=3, game_id=f"check-{key}", first_dealer=1, decks=decks)


def _is_dog(view: SeatView) -> bool:
    return view.status[view.seat] is SeatStatus.DOG


def build_situations() -> list[Situation]:
    """The scripted situations, freshly built (each holds its own Game), in the order asked."""
    return [
        _situation("lead", "leads a trick", "any card in hand may be led (rules.md R11)", _tricks_game("lead"), lambda v: True),
        _situation(
            "follow-suit",
            "follows suit",
            "holding the led suit, it must follow suit (rules.md R12)",
            _tricks_game("follow-suit"),
            lambda v: True,
            script=["7C"],
        ),
        _situation(
            "void",
            "plays when void in the led suit",
            "void in the led suit, any card is legal (rules.md R12)",
            _tricks_game("void"),
            lambda v: True,
            script=["7C", "KC"],
        ),
        _situation(
            "name-trump",
            "names trump after the deal",
            "the trump chooser names one of the four suits after seeing its hand (rules.md R8)",
            _dog_game("name-trump"),
            lambda v: v.decision is DecisionKind.CHOOSE_TRUMP,
        ),
        _situation(
            "dog-choice",
            "a dog chooses to pass or play",
            "a dog may play its card or pass on any trick but the last (rules.md R18)",
            _dog_game("dog-choice"),
            lambda v: v.decision is DecisionKind.PLAY and _is_dog(v),
        ),
        _situation(
            "dog-last-trick",
            "a dog on its last trick",
            "a dog may not pass on the last trick of the round (rules.md R18)",
            _dog_game("dog-last-trick"),
            lambda v: v.decision is DecisionKind.PLAY and _is_dog(v) and v.trick_number == v.hand_size,
        ),
        _situation(
            "dog-leads",
            "a dog that is due to lead",
            "a dog due to lead may play its card or pass; after a pass the next seat leads (rules.md R18)",
            _dog_leads_game("dog-leads"),
            lambda v: v.decision is DecisionKind.PLAY and _is_dog(v) and _leading(v),
        ),
        _situation(
            "dog-after-pass",
            "a dog after another dog passed",
            "every dog still holding its card plays or passes in turn; a pass before it changes nothing (rules.md R18)",
            _two_dogs_game("dog-after-pass"),
            lambda v: v.decision is DecisionKind.PLAY and _is_dog(v) and _after_a_pass(v),
        ),
        _situation(
            "final-round-dog",
            "a dog in the last round",
            "the last round's one trick is the dog's last: it must play its card (rules.md R18; dog_life = \"any_round\")",
            _last_round_dog_game("final-round-dog"),
            lambda v: v.decision is DecisionKind.PLAY and _is_dog(v) and v.round_number == 7,
            policy=lowest,
        ),
        _situation(
            "final-round",
            "plays a one-card final round",
            "round 7 deals one card; void in the led suit, it plays it (rules.md R3, R12)",
            _final_round_game("final-round"),
            lambda v: v.round_number == 7 and v.current_trick is not None and len(v.current_trick.plays) == 1,
        ),
    ]


def finish(situation: Situation) -> Game:
    """Play ``situation``'s game to its end with the scripts' policy (for GameOver)."""
    game = situation.game
    while not game.over:
        seat = game.to_act
        assert seat is not None
        game.apply(seat, highest(game.view(seat), dog_passes=False))
    return game
