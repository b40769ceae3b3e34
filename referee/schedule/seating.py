"""Cyclic seating orders that balance neighbours: who sits directly after whom.

In Knockout Whist the player on your left (the next seat, who plays after you) matters.
A table replays each deal in every rotation of its seats, which moves every bot through
every seat but keeps the cyclic order; so the schedule varies the cyclic order from
deal to deal. :func:`balanced_order` picks, for one table and one deal, the cyclic order
whose "b sits directly after a" pairs have met least so far (a greedy rule over the
whole league, used by round-robin; the schedule module tests the spreads it reaches).
The movement format (:mod:`referee.schedule.movement`) uses :func:`anneal_orders` instead, a local
search over all of a round's tables at once, on :class:`Evenness`. Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import permutations

_ALL_ORDERS_UP_TO = 24  # (k-1)! cyclic orders are all tried up to tables of 5; larger tables sample
_SAMPLED_ORDERS = 48
_HOT, _COLD = 3.0, 0.1  # annealing temperatures, in units of Evenness
_BEST_RESPONSE_PASSES = 3

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


def _shape(d: float) -> float:
    """The :class:`Evenness` of one count ``d`` away from the mean."""
    return d**2 + d**4


class Evenness:
    """The search's measure of how uneven whole counts (pair meetings, neighbours) are:
    the sum over keys of ``d**2 + d**4``, d = count - mean, for a known total. Convex, so
    least when every count is within 1 of the mean; the fourth power makes the extremes
    (the spread) weigh more than the sum of squares alone does.

    ``matrix[a][b]`` holds the counts (the diagonal is not a key); ``symmetric`` when
    ``matrix[a][b]`` and ``matrix[b][a]`` are one key (pairs) rather than two (ordered
    pairs); ``total`` is the sum over keys once the counts being placed are in; ``reach``
    how far above the largest count now a count may go."""

    def __init__(self, matrix: list[list[int]], symmetric: bool, total: int, reach: int) -> None:
        size = len(matrix)
        keys = size * (size - 1) // (2 if symmetric else 1)
        mean = total / keys
        top = max(max(row) for row in matrix) + reach + 2
        self.penalty = [_shape(count - mean) for count in range(top)]
        base, extra = divmod(total, keys)
        self.least = (keys - extra) * self.penalty[base] + extra * self.penalty[base + 1] + 1e-6
        self.cost = sum(self.penalty[value] for a, row in enumerate(matrix) for b, value in enumerate(row) if a != b)
        if symmetric:
            self.cost /= 2


def successor_counts(order: list[int], follows: list[list[int]], step: int, evenness: Evenness | None = None) -> float:
    """Add ``step`` (+1 or -1) to ``follows`` for every successor pair of ``order``; the change
    of ``evenness`` (0 without one)."""
    change = 0.0
    penalty = evenness.penalty if evenness is not None else None
    for i, bot in enumerate(order):
        row = follows[bot]
        after = order[i + 1 - len(order)]
        count = row[after]
        if penalty is not None:
            change += penalty[count + step] - penalty[count]
        row[after] = count + step
    return change


def anneal_orders(orders: list[list[int]], follows: list[list[int]], rng: random.Random, steps: int) -> None:
    """Improve the cyclic orders ``orders`` (bot indices, tables of 3 or more, changed in
    place) so that who sits directly after whom is even: ``follows[a][b]`` counts the deals
    b sat directly after a, these orders included. Each order starts as the best of its
    candidates given the others (a few passes over all), then simulated annealing
    (``steps`` swaps of two seats) lowers their :class:`Evenness`, stopping at the least
    the total allows. Pure function of the arguments and the state of ``rng`` (which it
    advances)."""
    if not orders:
        return
    size = len(orders[0])
    evenness = Evenness(follows, False, sum(map(sum, follows)), len(orders))
    penalty = evenness.penalty
    for _ in range(_BEST_RESPONSE_PASSES):
        changed = False
        for order in orders:
            evenness.cost += successor_counts(order, follows, -1, evenness)
            best, cost = order, sum(penalty[follows[bot][order[i + 1 - size]] + 1] - penalty[follows[bot][order[i + 1 - size]]] for i, bot in enumerate(order))
            for candidate in _candidates(size, rng):
                seats = [order[i] for i in candidate]
                now = sum(penalty[follows[bot][seats[i + 1 - size]] + 1] - penalty[follows[bot][seats[i + 1 - size]]] for i, bot in enumerate(seats))
                if now < cost - 1e-9:
                    best, cost = seats, now
            changed = changed or best is not order
            order[:] = best
            evenness.cost += successor_counts(order, follows, 1, evenness)
        if not changed:
            break
    penalty, draw = evenness.penalty, rng.random
    for step in range(steps):
        if evenness.cost <= evenness.least:
            return
        heat = _HOT * (_COLD / _HOT) ** (step / steps)
        order = orders[int(draw() * len(orders))]
        i = int(draw() * size)
        j = int(draw() * (size - 1))
        j += j >= i
        arcs = {(i - 1) % size, i, (j - 1) % size, j}  # the successor pairs (order[t], order[t + 1]) a swap changes
        change = 0.0
        for sign in (-1, 1):
            if sign > 0:
                order[i], order[j] = order[j], order[i]
            for t in arcs:
                row = follows[order[t]]
                after = order[t + 1 - size]
                count = row[after]
                change += penalty[count + sign] - penalty[count]
                row[after] = count + sign
        if change <= 0 or draw() < math.exp(-change / heat):
            evenness.cost += change
        else:
            for sign in (-1, 1):
                if sign > 0:
                    order[i], order[j] = order[j], order[i]
                for t in arcs:
                    follows[order[t]][order[t + 1 - size]] += sign
