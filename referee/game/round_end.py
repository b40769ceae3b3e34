"""End of a round (rules.md R9, R10, R16, R17, variants of §2; forfeits of docs/design.md §5).

Pure functions of a finished round's facts: who survives, who gets the dog's life, who
is knocked out, and who names trump next round.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from referee.game.cards import CARDS
from referee.game.rules import Rules
from referee.game.views import SeatStatus

_IN, _DOG, _OUT = SeatStatus.IN, SeatStatus.DOG, SeatStatus.OUT


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a round's end does to the seats in it (rules.md R17). Seats ascending.

    ``survivors`` play the next round as normal players, ``dogs`` on the dog's life,
    ``knocked_out`` were knocked out by play and ``forfeited`` by the referee.
    """

    survivors: tuple[int, ...]
    dogs: tuple[int, ...]
    knocked_out: tuple[int, ...]
    forfeited: tuple[int, ...]


def required_tricks(rules: Rules, round_number: int, hand_size: int, last_round: int) -> int:
    """Tricks a normal player needs to survive (rules.md R16; ``strict``: min(r, h_r)).

    Tiebreak deals after the last round need one trick.

    >>> required_tricks(Rules(), round_number=3, hand_size=5, last_round=7)
    1
    >>> required_tricks(Rules(required_tricks="strict"), round_number=3, hand_size=5, last_round=7)
    3
    """
    if rules.required_tricks == "one" or round_number > last_round:
        return 1
    return min(round_number, hand_size)


def dog_life_available(rules: Rules, round_number: int, last_round: int, used: bool) -> bool:
    """Whether players failing this round get the dog's life (rules.md R17c, variant ``dog_life``).

    Never after the last round (R17e) nor in a tiebreak deal; once per game.

    >>> dog_life_available(Rules(), round_number=1, last_round=7, used=False)
    True
    >>> dog_life_available(Rules(), round_number=2, last_round=7, used=False)  # round1 only by default
    False
    """
    if used or round_number >= last_round or rules.dog_life == "off":
        return False
    return rules.dog_life == "any_round" or round_number == 1


def resolve_round(
    status: Sequence[SeatStatus],
    tricks_won: Sequence[int],
    forfeits: Collection[int],
    required: int,
    dog_life: bool,
    *,
    strict: bool = False,
) -> RoundResult:
    """Apply docs/rules.md R17 (and the ``strict`` variant, and docs/design.md §5
    forfeits) to one round.

    ``status`` is each seat's standing during the round, ``tricks_won`` per seat,
    ``forfeits`` the seats that forfeited this round, ``required`` the tricks a normal
    player needs, ``dog_life`` whether failing normal players with no trick become dogs,
    ``strict`` whether the ``required_tricks = "strict"`` fallback applies.

    - A dog with a trick returns to normal play, one without is knocked out (R17b),
      whatever ``required``; a dog's trick never counts as meeting the quota.
    - ``strict``: when no normal player meets ``required``, the normal players with the
      most tricks survive (docs/rules.md W23).
    - A failing normal player gets the dog's life only with no trick at all (and
      ``dog_life``); one with some tricks below the quota is knocked out (docs/rules.md W22).
    - A forfeiter is knocked out whatever its tricks; it never gets the dog's life.
    - If no non-forfeited seat survives, the non-forfeited seats with the most tricks
      survive instead; if every seat in forfeited, nobody survives.

    >>> IN, DOG = SeatStatus.IN, SeatStatus.DOG
    >>> resolve_round([IN, IN, IN, IN], tricks_won=(4, 3, 0, 0), forfeits=(), required=1, dog_life=True)
    RoundResult(survivors=(0, 1), dogs=(2, 3), knocked_out=(), forfeited=())
    >>> resolve_round([IN, IN, DOG, IN], tricks_won=(3, 2, 1, 1), forfeits={3}, required=1, dog_life=False)
    RoundResult(survivors=(0, 1, 2), dogs=(), knocked_out=(), forfeited=(3,))
    """
    players = [seat for seat, standing in enumerate(status) if standing is not _OUT]
    normal = [seat for seat in players if status[seat] is _IN]
    meets = [seat for seat in normal if tricks_won[seat] >= required]
    if strict and not meets and normal:
        most = max(tricks_won[seat] for seat in normal)
        meets = [seat for seat in normal if tricks_won[seat] == most]
    dogs_back = [seat for seat in players if status[seat] is _DOG and tricks_won[seat] >= 1]
    rest = [seat for seat in players if seat not in forfeits]
    survivors = sorted(seat for seat in meets + dogs_back if seat not in forfeits)
    if not survivors and rest:
        most = max(tricks_won[seat] for seat in rest)
        survivors = [seat for seat in rest if tricks_won[seat] == most]
    forfeited = tuple(seat for seat in players if seat in forfeits)
    dogs: list[int] = []
    knocked_out: list[int] = []
    for seat in rest:
        if seat not in survivors:  # failed
            life = dog_life and status[seat] is _IN and tricks_won[seat] == 0
            (dogs if life else knocked_out).append(seat)
    return RoundResult(tuple(survivors), tuple(dogs), tuple(knocked_out), forfeited)


def pick_trump_chooser(
    rules: Rules,
    seed: int,
    next_round: int,
    tricks_won: Sequence[int],
    candidates: Collection[int],
    dealer: int,
    previous_chooser: int | None,
    tiebreak: bool,
) -> int:
    """Who names trump in ``next_round`` (rules.md R9, R10, variant ``trump_tiebreak``).

    ``tricks_won`` are last round's, ``candidates`` the seats in next round, ``dealer``
    last round's dealer. A tiebreak deal (``strict``, after the last round) is named by
    the previous chooser while it is still in. Otherwise the candidate with the most
    tricks; ties: the first clockwise from the player left of ``dealer``, or with ``cut``
    a card drawn from a fresh deck seeded by ``(seed, next_round, draw)``, highest rank
    choosing, equal ranks drawing again.

    >>> pick_trump_chooser(Rules(), seed=1, next_round=2, tricks_won=(2, 3, 3, 1), candidates={0, 1, 2, 3},
    ...                    dealer=0, previous_chooser=None, tiebreak=False)  # seats 1 and 2 tied: 1 is left of the dealer
    1
    """
    if tiebreak and previous_chooser is not None and previous_chooser in candidates:
        return previous_chooser
    num_seats = len(tricks_won)
    most = -1
    tied: list[int] = []  # the candidates with the most tricks, clockwise from the dealer's left
    for step in range(1, num_seats + 1):
        seat = (dealer + step) % num_seats
        if seat in candidates:
            won = tricks_won[seat]
            if won > most:
                most, tied = won, [seat]
            elif won == most:
                tied.append(seat)
    if len(tied) == 1 or rules.trump_tiebreak == "dealer_left":
        return tied[0]
    return cut_for_trump(seed, next_round, tied)


def cut_for_trump(seed: int, round_number: int, tied: Sequence[int]) -> int:
    """The ``cut`` tiebreak (rules.md §2): each tied seat in turn draws from a fresh seeded deck;
    the highest rank wins; seats tied on the highest rank draw again from a new deck."""
    draw = 0
    while len(tied) > 1:
        deck = list(CARDS)
        random.Random(f"{seed}:cut:{round_number}:{draw}").shuffle(deck)
        ranks = {seat: deck[index].rank for index, seat in enumerate(tied)}
        best = max(ranks.values())
        tied = [seat for seat in tied if ranks[seat] == best]
        draw += 1
    return tied[0]


def placements(
    knocked_out_round: Sequence[int | None], forfeited: Sequence[bool], winner: int | None
) -> tuple[int, ...]:
    """Competition-ranked places (rules.md R21, docs/design.md §5, §7): the winner 1; a later
    knock-out round ranks higher; the same round shares a place; within a round, seats
    knocked out by forfeit rank below those knocked out by play. E.g. (1, 2, 2, 4).

    >>> placements(knocked_out_round=[None, 2, 2, 1], forfeited=[False, False, False, False], winner=0)
    (1, 2, 2, 4)
    >>> placements(knocked_out_round=[None, 2, 2, 1], forfeited=[False, False, True, False], winner=0)
    (1, 2, 3, 4)
    """
    keys = [
        (1 << 30, 1) if seat == winner else (knocked_out_round[seat] or 0, 0 if forfeited[seat] else 1)
        for seat in range(len(knocked_out_round))
    ]
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)
