"""Cyclic seating orders that balance neighbours: who sits directly after whom.

In Knockout Whist the player on your left (the next seat, who plays after you) matters.
A table replays each deal in every rotation of its seats, which moves every bot through
every seat but keeps the cyclic order; so the schedule varies the cyclic order from
deal to deal. :func:`balanced_order` picks, for one table and one deal, the cyclic order
whose "b sits directly after a" pairs have met least so far (a greedy rule over the
whole league; the schedule module tests the spreads it reaches). Pure: no I/O, no clock.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import permutations

_ALL_ORDERS_UP_TO = 24  # (k-1)! cyclic orders are all tried up to tables of 5; larger tables sample
_SAMPLED_ORDERS = 48

Follows = Counter[tuple[str, str]]  # (a, b): how many deals b sat directly after a


def successor_pairs(seats: Sequence[str]) -> list[tuple[str, str]]:
    """``(seats[i], seats[i + 1 mod k])`` for every seat i: (a bot, the bot directly after it)."""
    return [(seats[i], seats[(i + 1) % len(seats)]) for i in range(len(seats))]


@cache
def _cyclic_orders(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple((0, *rest) for rest in permutations(range(1, size)))


def _candidates(size: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Cyclic orders of ``range(size)`` (each starting with 0), in a seeded order."""
    orders = _cyclic_orders(size)
    if len(orders) <= _ALL_ORDERS_UP_TO:
        shuffled = list(orders)
        rng.shuffle(shuffled)
        return shuffled
    return rng.sample(orders, _SAMPLED_ORDERS)


def balanced_order(table: Sequence[str], follows: Follows, rng: random.Random) -> tuple[str, ...]:
    """A cyclic order of ``table`` (its seat 0 first) whose successor pairs have the smallest
    sum of counts in ``follows``; ties go to the first in a seeded order, so the result is a
    pure function of the arguments and the state of ``rng`` (which it advances).

    Adds the chosen pairs to ``follows``. A table of 2 has one cyclic order.
    """
    base = list(table)
    best: tuple[str, ...] = tuple(base)
    if len(base) > 2:
        best_cost = -1
        for order in _candidates(len(base), rng):
            seats = [base[i] for i in order]
            cost = sum(follows[pair] for pair in successor_pairs(seats))
            if best_cost < 0 or cost < best_cost:
                best, best_cost = tuple(seats), cost
    follows.update(successor_pairs(best))
    return best


def rebalance(orders: list[tuple[str, ...]], follows: Follows, rng: random.Random, passes: int = 3) -> list[tuple[str, ...]]:
    """Improve the cyclic orders ``orders`` (whose pairs ``follows`` already counts) one at a
    time: take its pairs out, put back the best order (:func:`balanced_order`, the current
    one kept on a tie), for ``passes`` passes or until nothing changes. Returns the new
    orders; ``follows`` is kept up to date."""
    result = list(orders)
    for _ in range(passes):
        changed = False
        for position, order in enumerate(result):
            current = successor_pairs(order)
            follows.subtract(current)
            now = sum(follows[pair] for pair in current)
            chosen = order
            for candidate in _candidates(len(order), rng) if len(order) > 2 else ():
                seats = tuple(order[i] for i in candidate)
                cost = sum(follows[pair] for pair in successor_pairs(seats))
                if cost < now:
                    chosen, now = seats, cost
            follows.update(successor_pairs(chosen))
            if chosen != order:
                result[position] = chosen
                changed = True
        if not changed:
            break
    return result
