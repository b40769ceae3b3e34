"""The situations ``referee check-bot`` asks: one for each branch of the rules a bot can meet.

A branch (:data:`BRANCHES`) is a kind of decision the engine can put to a seat, told apart
by what the seat sees: leading, following suit, void in the led suit, naming trump (with no
trump offered or not, after a tie for most tricks), its last trick, a one-card round, a
knocked-out neighbour, the smallest and the largest table, the dog leading, following,
passing after another dog and on its last trick, a normal player leading after a dog passed
(or played face down), and what each rule variant of docs/rules.md §2 adds.

The situations are not listed by hand: :func:`build_situations` plays seeded games with
random legal play under each rule set the check covers (:func:`rule_sets`: the rules given,
then every value of each variant not pinned, one variant at a time), and the first decision
that shows a branch not yet asked becomes a situation, until every branch possible under
those rules has one. Pure and deterministic: the same rules give the same situations.
"""

from __future__ import annotations

import hashlib
import random
import typing
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, fields

from referee.game.engine import Game, replay
from referee.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from referee.game.views import (
    Action,
    ChooseTrump,
    DecisionKind,
    Event,
    Pass,
    RoundEnded,
    SeatStatus,
    SeatView,
)

GAMES_PER_RULE_SET = 400  # the budget of one rule set; every branch is found far sooner (tests)


@dataclass(frozen=True)
class Situation:
    """One question. ``view`` is what ``seat`` is asked at decision ``decision_number``
    (game-wide, 0-based) of ``game`` (left at that decision); ``events`` are all public
    events so far (the bot has seen none of this game). ``branches`` are the keys of the
    branches it is the first to ask (``key`` the first of them), ``rule`` says what a legal
    answer respects (a rules.md section)."""

    key: str
    title: str
    rule: str
    game: Game
    view: SeatView
    events: tuple[Event, ...]
    decision_number: int
    branches: tuple[str, ...] = ()


Holds = Callable[[SeatView, Sequence[Event]], bool]


@dataclass(frozen=True)
class Branch:
    """A kind of decision: ``holds(view, events)`` says whether a decision is of it,
    ``possible(rules)`` whether random play under a rule set meets it (within
    :data:`GAMES_PER_RULE_SET` games, tests assert); ``needs``: the variants it needs
    together (beyond the one-variant rule sets, :func:`rule_sets`)."""

    key: str
    title: str
    rule: str
    holds: Holds
    possible: Callable[[Rules], bool] = lambda rules: True
    needs: tuple[tuple[str, object], ...] = ()


# --- what a seat sees ----------------------------------------------------------------


def _plays(view: SeatView) -> bool:
    return view.decision is DecisionKind.PLAY


def _dog(view: SeatView) -> bool:
    return _plays(view) and view.status[view.seat] is SeatStatus.DOG


def _normal(view: SeatView) -> bool:
    return _plays(view) and view.status[view.seat] is SeatStatus.IN


def _trick(view: SeatView) -> tuple[typing.Any, ...]:
    return view.current_trick.plays if view.current_trick is not None else ()


def _leads(view: SeatView) -> bool:
    return not _trick(view)


def _holds_led(view: SeatView) -> bool:
    led = view.led_suit
    return led is not None and any(card.suit == led for card in view.hand)


def _after_passes_only(view: SeatView) -> bool:
    plays = _trick(view)
    return bool(plays) and all(play.card is None and not play.face_down for play in plays)


def _after_face_down_only(view: SeatView) -> bool:
    plays = _trick(view)
    return bool(plays) and all(play.face_down for play in plays)


def _may_pass(view: SeatView) -> bool:
    return Pass() in view.legal


def _left_of_dealer(view: SeatView) -> int:
    for step in range(1, view.num_seats + 1):
        seat = (view.dealer + step) % view.num_seats
        if view.status[seat] is not SeatStatus.OUT:
            return seat
    return view.dealer


def _tied_for_most(events: Sequence[Event]) -> bool:
    """The round before this one ended with several seats tied for the most tricks (R10)."""
    for event in reversed(events):
        if isinstance(event, RoundEnded):
            most = max(event.tricks_won)
            return sum(won == most for won in event.tricks_won) > 1
    return False


def _neighbour_out(view: SeatView) -> bool:
    seats = view.num_seats
    return seats >= 3 and SeatStatus.OUT in (view.status[(view.seat + 1) % seats], view.status[(view.seat - 1) % seats])


def _names_trump(view: SeatView) -> bool:
    return view.decision is DecisionKind.CHOOSE_TRUMP


def _last_round(view: SeatView) -> bool:
    return view.round_number == view.rules.start_hand_size


def _named(rules: Rules) -> bool:
    """Trump is named: there is a round 2."""
    return rules.start_hand_size >= 2


def _dogs(rules: Rules) -> bool:
    """A dog gets its card, in a round of more than one trick."""
    return rules.dog_life != "off" and rules.start_hand_size >= 3


def _passing_dogs(rules: Rules) -> bool:
    """A dog may pass (rules.md R18)."""
    return _dogs(rules) and rules.dog_play == "choose_trick"


def _dog_may_lead(rules: Rules) -> bool:
    """A dog may be due to lead a trick before the last (under ``first_lead = trump_chooser``
    the chooser leads the first)."""
    return _passing_dogs(rules) and (rules.first_lead == "dealer_left" or rules.start_hand_size >= 4)


def _face_down_dogs(rules: Rules) -> bool:
    """A dog plays face down on the first trick (rules.md W24)."""
    return _dogs(rules) and rules.dog_play == "first_trick"


R12 = "holding the led suit, it must follow suit; void, any card is legal (rules.md R12)"
R18 = "a dog may play its card or pass on any trick but the last (rules.md R18)"

BRANCHES: tuple[Branch, ...] = (
    Branch("lead", "leads a trick", "any card in hand may be led (rules.md R11)", lambda v, e: _normal(v) and _leads(v)),
    Branch("follow-suit", "follows suit", "holding the led suit, it must follow suit (rules.md R12)",
           lambda v, e: _normal(v) and _holds_led(v)),
    Branch("void", "plays when void in the led suit", "void in the led suit, any card is legal (rules.md R12)",
           lambda v, e: _normal(v) and v.led_suit is not None and not _holds_led(v) and len(v.hand) > 1, _named),
    Branch("name-trump", "names trump after the deal", "the trump chooser names one of the suits offered (rules.md R8)",
           lambda v, e: _names_trump(v) and ChooseTrump(None) not in v.legal, lambda rules: _named(rules) and not rules.allow_no_trump),
    Branch("trump-tie", "names trump after a tie for most tricks", "the tied player found by the tiebreak names trump (rules.md R10)",
           lambda v, e: _names_trump(v) and _tied_for_most(e), _named),
    Branch("last-trick", "plays its last card of a round", "its one card left is its only legal play (rules.md R12)",
           lambda v, e: _normal(v) and len(v.hand) == 1 and v.hand_size > 1, _named),
    Branch("one-card-round", "plays a one-card round", "a round of one card each: one trick (rules.md R3, R12)",
           lambda v, e: _normal(v) and v.hand_size == 1,
           lambda rules: rules.required_tricks == "one" or rules.start_hand_size <= 4),  # strict quotas rarely leave two in so long
    Branch("neighbour-out", "plays beside a knocked-out seat", "a knocked-out seat is skipped: play goes to the next seat in (rules.md R5, R12)",
           lambda v, e: _plays(v) and _neighbour_out(v), _named),
    Branch("two-seats", "plays at a table of two", R12, lambda v, e: _plays(v) and v.num_seats == MIN_PLAYERS),
    Branch("seven-seats", "plays at a table of seven", R12, lambda v, e: _plays(v) and v.num_seats == MAX_PLAYERS),
    Branch("dog-leads", "a dog that is due to lead", "a dog due to lead may play its card or pass; after a pass the next seat leads (rules.md R18)",
           lambda v, e: _dog(v) and _leads(v) and _may_pass(v), _dog_may_lead),
    Branch("dog-follows", "a dog after a card was led", R18, lambda v, e: _dog(v) and v.led_suit is not None and _may_pass(v), _passing_dogs),
    Branch("dog-after-pass", "a dog after another dog passed",
           "every dog still holding its card plays or passes in turn; a pass before it changes nothing (rules.md R18)",
           lambda v, e: _dog(v) and any(p.card is None and not p.face_down for p in _trick(v)), _passing_dogs),
    Branch("dog-last-trick", "a dog on its last trick", "a dog may not pass on the last trick of the round (rules.md R18)",
           lambda v, e: _dog(v) and not _may_pass(v) and v.hand_size > 1 and v.rules.dog_play == "choose_trick",
           _passing_dogs),
    Branch("lead-after-pass", "leads after a dog passed the lead",
           "after the dog due to lead passes, the next seat leads: the trick holds a pass and no card (rules.md R18)",
           lambda v, e: _normal(v) and _after_passes_only(v), _dog_may_lead),
    Branch("after-dog-card", "follows a card a dog led", R12,
           lambda v, e: _normal(v) and bool(_trick(v)) and _trick(v)[0].card is not None
           and v.status[_trick(v)[0].seat] is SeatStatus.DOG and not _trick(v)[0].face_down, _passing_dogs),
    Branch("no-trump-offered", "names trump where no trump is allowed", "the chooser names a suit or no trump (rules.md R8, allow_no_trump)",
           lambda v, e: _names_trump(v) and ChooseTrump(None) in v.legal, lambda rules: rules.allow_no_trump and _named(rules)),
    Branch("no-trump-round", "plays in a no-trump round", "without trump, the highest card of the suit led wins (rules.md R13)",
           lambda v, e: _plays(v) and v.no_trump, lambda rules: rules.allow_no_trump and _named(rules)),
    Branch("dog-first-trick", "a dog that must play on the first trick", "under dog_play = first_trick a dog plays its card face down on the first trick (rules.md §2)",
           lambda v, e: _dog(v) and v.rules.dog_play == "first_trick", _face_down_dogs),
    Branch("lead-after-face-down", "plays the first face-up card after a face-down one", "a face-down card leads no suit: the first card face up does (rules.md W24)",
           lambda v, e: _normal(v) and _after_face_down_only(v), lambda rules: _face_down_dogs(rules) and rules.first_lead == "dealer_left"),
    Branch("follow-face-down", "follows in a trick holding a face-down card", "the suit to follow is the first face-up card's (rules.md W24)",
           lambda v, e: _normal(v) and v.led_suit is not None and any(p.face_down for p in _trick(v)),
           _face_down_dogs),
    Branch("dog-later-round", "a dog after round 2", "the dog's life is given in any round but the last (rules.md §2, dog_life = any_round)",
           lambda v, e: _dog(v) and v.round_number > 2, lambda rules: rules.dog_life == "any_round" and rules.start_hand_size >= 4),
    Branch("dog-last-round", "a dog in the last round", "the last round's one trick is the dog's last: it must play its card (rules.md R18, §2)",
           lambda v, e: _dog(v) and _last_round(v),
           lambda rules: rules.dog_life == "any_round" and rules.required_tricks == "one" and rules.start_hand_size >= 4),
    Branch("no-dog-life", "plays after a seat was knocked out in round 1", "without the dog's life a player with no trick is out (rules.md §2, dog_life = off)",
           lambda v, e: _plays(v) and v.round_number == 2 and SeatStatus.OUT in v.status, lambda rules: rules.dog_life == "off" and _named(rules)),
    Branch("tiebreak-deal", "plays an extra one-card deal after the last round", "several still in after the last round play one-card deals (rules.md §2, required_tricks = strict)",
           lambda v, e: _plays(v) and v.round_number > v.rules.start_hand_size,
           lambda rules: rules.required_tricks == "strict" and rules.dog_life != "off" and rules.start_hand_size == 2,
           (("required_tricks", "strict"), ("start_hand_size", 2))),  # a dog takes the last round's trick: the normal players stay in
    Branch("chooser-leads", "the trump chooser leads the round", "under first_lead = trump_chooser the chooser leads the first trick (rules.md §2)",
           lambda v, e: _normal(v) and _leads(v) and v.trick_number == 1 and v.trump_chooser == v.seat and v.seat != _left_of_dealer(v),
           lambda rules: rules.first_lead == "trump_chooser" and _named(rules)),
    Branch("cut-tie", "names trump after a tie settled by a cut", "tied players cut, the highest card names trump (rules.md §2, trump_tiebreak = cut)",
           lambda v, e: _names_trump(v) and _tied_for_most(e), lambda rules: rules.trump_tiebreak == "cut" and _named(rules)),
    Branch("turn-up-bottom", "plays with trump turned up from the bottom of the deck", "round 1's trump is the deck's last card (rules.md §2, turn_up = bottom)",
           lambda v, e: _plays(v) and v.round_number == 1, lambda rules: rules.turn_up == "bottom"),
    Branch("short-game", "plays the last round of a game dealt fewer than 7 cards", "start_hand_size rounds, the last of one card (rules.md R3, §2)",
           lambda v, e: _plays(v) and 1 < v.rules.start_hand_size < 7 and _last_round(v), lambda rules: 1 < rules.start_hand_size < 7),
    Branch("one-round-game", "plays a game of one round", "start_hand_size = 1: one card each and the turn-up, one trick (rules.md R3, §2)",
           lambda v, e: _plays(v) and v.rules.start_hand_size == 1, lambda rules: rules.start_hand_size == 1),
)  # fmt: skip
"""Every branch, in the order the situations are asked."""


# --- the rule sets -------------------------------------------------------------------


def variant_values() -> dict[str, tuple[object, ...]]:
    """Every value of each rule variant (rules.md §2), read from :class:`Rules`' types:
    ``{"dog_life": ("round1", "any_round", "off"), ..., "start_hand_size": (7, 6, ..., 1)}``."""
    hints = typing.get_type_hints(Rules)
    values: dict[str, tuple[object, ...]] = {}
    for field in fields(Rules):
        hint = hints[field.name]
        if hint is bool:
            values[field.name] = (False, True)
        elif hint is int:
            values[field.name] = tuple(range(7, 0, -1))
        else:
            values[field.name] = typing.get_args(hint)
    return values


def rule_sets(rules: Rules, pinned: Collection[str] = ()) -> list[Rules]:
    """``rules``, then ``rules`` with one variant not in ``pinned`` changed to each of its
    other values, then with the variants a branch ``needs`` together: the rule sets whose
    branches a bot meets in any league that keeps ``pinned`` as given."""
    found = [rules]
    for key, values in variant_values().items():
        if key in pinned:
            continue
        found += [Rules.from_dict({**rules.as_dict(), key: value}) for value in values if value != getattr(rules, key)]
    for branch in BRANCHES:
        if branch.needs:
            combined = Rules.from_dict({**rules.as_dict(), **{key: value for key, value in branch.needs if key not in pinned}})
            if combined not in found:
                found.append(combined)
    return found


# --- the search ----------------------------------------------------------------------


def _seed(rule_set: int, game: int) -> int:
    return int.from_bytes(hashlib.sha256(f"check-bot situations:{rule_set}:{game}".encode()).digest()[:8], "big")


def _table_sizes(rules: Rules) -> list[int]:
    return [seats for seats in range(MIN_PLAYERS, MAX_PLAYERS + 1) if seats * rules.start_hand_size <= 51]


@dataclass(frozen=True)
class Coverage:
    """What :func:`build_situations` found: the situations in :data:`BRANCHES` order, the
    branches no rule set of the check can produce (``impossible``), those possible but not
    met within the budget (``missed``: none, tests assert), and how many rule sets and games
    the search used."""

    situations: tuple[Situation, ...]
    impossible: tuple[str, ...]
    missed: tuple[str, ...]
    rule_sets: int
    games: int

    @property
    def covered(self) -> tuple[str, ...]:
        return tuple(key for situation in self.situations for key in situation.branches)


def build_situations(rules: Rules | None = None, pinned: Collection[str] = (), *, games: int = GAMES_PER_RULE_SET) -> Coverage:
    """Find a situation for every branch possible under :func:`rule_sets` ``(rules,
    pinned)`` (default: the default rules, nothing pinned), each a fresh game of its own."""
    plans = rule_sets(rules or Rules(), pinned)
    possible = [b for b in BRANCHES if any(b.possible(plan) for plan in plans)]
    found: dict[str, tuple[Rules, int, int, int, tuple[tuple[int, Action], ...], tuple[str, ...]]] = {}
    played = 0
    for index, plan in enumerate(plans):
        wanted = [b for b in possible if b.possible(plan) and b.key not in found]
        sizes = _table_sizes(plan)
        number = 0
        while wanted and number < games:
            seed = _seed(index, number)
            seats = sizes[number % len(sizes)]
            number += 1
            wanted = _search_game(plan, seats, seed, wanted, found)
        played += number
    picked = sorted({id(entry): entry for entry in found.values()}.values(), key=lambda entry: _order(entry[5][0]))
    situations = tuple(_situation(*entry) for entry in picked)
    return Coverage(
        situations=situations,
        impossible=tuple(b.key for b in BRANCHES if b not in possible),
        missed=tuple(b.key for b in possible if b.key not in found),
        rule_sets=len(plans),
        games=played,
    )


def _order(key: str) -> int:
    return next(index for index, branch in enumerate(BRANCHES) if branch.key == key)


def _search_game(
    rules: Rules,
    seats: int,
    seed: int,
    wanted: list[Branch],
    found: dict[str, tuple[Rules, int, int, int, tuple[tuple[int, Action], ...], tuple[str, ...]]],
) -> list[Branch]:
    """Play one seeded game with random legal play; the first decision showing some of
    ``wanted`` is recorded in ``found`` for each of them. Returns the branches still wanted."""
    game = Game(seats, rules, seed, first_dealer=seed % seats)
    rng = random.Random(seed)
    actions: list[tuple[int, Action]] = []
    while not game.over and wanted:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        shown = tuple(branch.key for branch in wanted if branch.holds(view, game.events))
        if shown:
            entry = (rules, seats, seed, seed % seats, tuple(actions), shown)
            for key in shown:
                found[key] = entry
            wanted = [branch for branch in wanted if branch.key not in shown]
        action = rng.choice(view.legal)
        game.apply(seat, action)
        actions.append((seat, action))
    return wanted


def _situation(
    rules: Rules, seats: int, seed: int, dealer: int, actions: tuple[tuple[int, Action], ...], keys: tuple[str, ...]
) -> Situation:
    """The situation at the end of ``actions``, replayed as a game of its own."""
    branches = [branch for branch in BRANCHES if branch.key in keys]
    game = replay(seats, rules, seed, dealer, None, actions, game_id=f"check-{branches[0].key}")
    seat = game.to_act
    assert seat is not None
    title = "; ".join(branch.title for branch in branches)
    if rules != Rules():
        title += f" ({', '.join(rules.options())})"
    return Situation(
        key=branches[0].key,
        title=title,
        rule=branches[0].rule,
        game=game,
        view=game.view(seat),
        events=tuple(game.events),
        decision_number=len(actions),
        branches=tuple(branch.key for branch in branches),
    )


def finish(situation: Situation) -> Game:
    """Play ``situation``'s game to its end with the first legal action (for GameOver)."""
    game = situation.game
    while not game.over:
        seat = game.to_act
        assert seat is not None
        game.apply(seat, game.legal_actions()[0])
    return game
