"""A bot with a bug in one branch of the rules: ``python branch_bug_bot.py BRANCH`` plays its
lowest legal card (names its longest suit trump), but raises (fault ``malformed``) whenever
its decision is of ``BRANCH``, as this bot tells it from what it is sent. Written apart from
check-bot's own list (referee/checkbot/situations.py), the way a student reads a request:
check-bot must ask each branch in a situation where this bot, too, sees it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from referee.botkit import Bot, Card, DecisionKind, Event, SeatStatus, SeatView, Suit, legal_cards, serve
from referee.game.views import RoundEnded

PLAY, TRUMP = DecisionKind.PLAY, DecisionKind.CHOOSE_TRUMP


def me(view: SeatView) -> SeatStatus:
    return view.status[view.seat]


def plays(view: SeatView) -> list:  # type: ignore[type-arg]
    return list(view.current_trick.plays) if view.current_trick is not None else []


def holds_led(view: SeatView) -> bool:
    return view.led_suit is not None and any(card.suit == view.led_suit for card in view.hand)


def can_pass(view: SeatView) -> bool:
    return any(type(action).__name__ == "Pass" for action in view.legal)


def tie_before(events: Sequence[Event]) -> bool:
    ended = [event for event in events if isinstance(event, RoundEnded)]
    return bool(ended) and sorted(ended[-1].tricks_won)[-2:] == [max(ended[-1].tricks_won)] * 2


def beside_out(view: SeatView) -> bool:
    n = view.num_seats
    return n >= 3 and SeatStatus.OUT in (view.status[(view.seat + 1) % n], view.status[(view.seat - 1) % n])


def left_of_dealer(view: SeatView) -> int:
    seat = (view.dealer + 1) % view.num_seats
    while view.status[seat] is SeatStatus.OUT:
        seat = (seat + 1) % view.num_seats
    return seat


Condition = Callable[[SeatView, Sequence[Event]], bool]
IN, DOG, OUT = SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT

BUGS: dict[str, Condition] = {
    "lead": lambda v, e: v.decision is PLAY and me(v) is IN and not plays(v),
    "follow-suit": lambda v, e: v.decision is PLAY and me(v) is IN and holds_led(v),
    "void": lambda v, e: v.decision is PLAY and me(v) is IN and v.led_suit is not None and not holds_led(v) and len(v.hand) > 1,
    "name-trump": lambda v, e: v.decision is TRUMP and not v.rules.allow_no_trump,
    "trump-tie": lambda v, e: v.decision is TRUMP and tie_before(e),
    "last-trick": lambda v, e: v.decision is PLAY and me(v) is IN and len(v.hand) == 1 and v.hand_size > 1,
    "one-card-round": lambda v, e: v.decision is PLAY and me(v) is IN and v.hand_size == 1,
    "neighbour-out": lambda v, e: v.decision is PLAY and beside_out(v),
    "two-seats": lambda v, e: v.decision is PLAY and v.num_seats == 2,
    "seven-seats": lambda v, e: v.decision is PLAY and v.num_seats == 7,
    "dog-leads": lambda v, e: v.decision is PLAY and me(v) is DOG and not plays(v) and can_pass(v),
    "dog-follows": lambda v, e: v.decision is PLAY and me(v) is DOG and v.led_suit is not None and can_pass(v),
    "dog-after-pass": lambda v, e: v.decision is PLAY and me(v) is DOG and any(p.card is None and not p.face_down for p in plays(v)),
    "dog-last-trick": lambda v, e: v.decision is PLAY and me(v) is DOG and not can_pass(v) and v.hand_size > 1 and v.rules.dog_play == "choose_trick",
    # the bug: the led suit read from the trick's first play, which is the dog's pass
    "lead-after-pass": lambda v, e: v.decision is PLAY and me(v) is IN and bool(plays(v)) and plays(v)[0].card is None and not plays(v)[0].face_down
    and all(p.card is None for p in plays(v)),
    "after-dog-card": lambda v, e: v.decision is PLAY and me(v) is IN and bool(plays(v)) and plays(v)[0].card is not None
    and not plays(v)[0].face_down and v.status[plays(v)[0].seat] is DOG,
    "no-trump-offered": lambda v, e: v.decision is TRUMP and v.rules.allow_no_trump,
    "no-trump-round": lambda v, e: v.decision is PLAY and v.no_trump,
    "dog-first-trick": lambda v, e: v.decision is PLAY and me(v) is DOG and v.rules.dog_play == "first_trick",
    "lead-after-face-down": lambda v, e: v.decision is PLAY and me(v) is IN and bool(plays(v)) and all(p.face_down for p in plays(v)),
    "follow-face-down": lambda v, e: v.decision is PLAY and me(v) is IN and v.led_suit is not None and any(p.face_down for p in plays(v)),
    "dog-later-round": lambda v, e: v.decision is PLAY and me(v) is DOG and v.round_number > 2,
    "dog-last-round": lambda v, e: v.decision is PLAY and me(v) is DOG and v.round_number == v.rules.start_hand_size,
    "no-dog-life": lambda v, e: v.decision is PLAY and v.rules.dog_life == "off" and v.round_number == 2 and OUT in v.status,
    "tiebreak-deal": lambda v, e: v.decision is PLAY and v.round_number > v.rules.start_hand_size,
    "chooser-leads": lambda v, e: v.decision is PLAY and me(v) is IN and not plays(v) and not v.completed_tricks
    and v.trump_chooser == v.seat and v.seat != left_of_dealer(v),
    "cut-tie": lambda v, e: v.decision is TRUMP and v.rules.trump_tiebreak == "cut" and tie_before(e),
    "turn-up-bottom": lambda v, e: v.decision is PLAY and v.rules.turn_up == "bottom" and v.round_number == 1,
    "short-game": lambda v, e: v.decision is PLAY and 1 < v.rules.start_hand_size < 7 and v.round_number == v.rules.start_hand_size,
    "one-round-game": lambda v, e: v.decision is PLAY and v.rules.start_hand_size == 1,
}


class BranchBug(Bot):
    name = "branch-bug"

    def __init__(self, branch: str) -> None:
        self.bug = BUGS[branch]
        self.branch = branch
        self.events: list[Event] = []

    def observe(self, view: SeatView, events: Sequence[Event]) -> None:
        self.events = list(events)  # each situation is a game of its own: all its events come at once

    def play(self, view: SeatView) -> Card | None:
        if self.bug(view, self.events):
            raise RuntimeError(f"a bug in branch {self.branch}")
        return min(legal_cards(view), key=lambda card: (card.rank, card.suit))

    def choose_trump(self, view: SeatView) -> Suit | None:
        if self.bug(view, self.events):
            raise RuntimeError(f"a bug in branch {self.branch}")
        return super().choose_trump(view)


if __name__ == "__main__":
    serve(BranchBug(sys.argv[1]))
