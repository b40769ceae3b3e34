"""The class-size format, ``format = "movement"``: a sampled schedule played in rounds
(docs/design.md §7), named after bridge's *individual movements* (a social-golfer style
schedule: new table-mates each sitting, as even as possible).

**Sittings and rounds.** In a *sitting* every bot plays at most one table of
``table_size`` (k) bots; the bots left over sit out (a bye). A *round* is the smallest run
of sittings after which every bot has played the same number of tables: with
``g = gcd(n, k)``, a round has ``n / g`` tables and every bot plays ``k / g`` of them, over
``ceil((n / g) / floor(n / k))`` sittings with the tables spread as evenly as possible
(so every bot has the same number of byes per round, and none when k divides n, where a
round is one sitting). Examples: 30 bots at tables of 4 -> 15 tables in 3 sittings of 5,
each bot plays 2 tables and sits out once; 12 bots at tables of 4 -> 3 tables, 1 sitting.

**Games.** Each table plays ``deals`` deals, each replayed in every rotation of its seats
(duplicate deals, as in round-robin): a round is ``(n / g) * deals * k`` games, and every
bot plays ``(k / g) * deals * k`` of them, so after every completed round games per bot
are equal, and every bot has sat in every seat, and been first dealer, exactly equally
often (each rotation moves every bot of the table through every seat; the first dealer
is a seat index fixed for the deal).

**Balance (seeded local search).** Byes go first to the bots with the most byes still due
this round, and tables are drawn greedily so that bots who met least sit together. Then
simulated annealing improves the whole round at once: it swaps two bots of two tables of
one sitting, or a player and a bye of one sitting together with the same two bots in a
sitting where their roles are the other way round (so byes per bot stay equal), and
keeps a swap that makes the pair meetings so far more even (:class:`referee.schedule.seating.Evenness`:
every count within 1 of the mean is the least it can be). The cyclic seating order of
every table and deal is then chosen the same way for who sits directly after whom
(:func:`referee.schedule.seating.anneal_orders`). Three shapes need no search. Tables of 2: the
circle method (an even number of bots) or Walecki's Hamiltonian cycles (odd) make every
pair meet once per cycle of rounds (:func:`_two_seat_rounds`). One bot more than the
table size (one table a sitting): the translates of a starter table make every bot sit
directly after every other exactly once a round (:func:`_one_table_rounds`). One table
of an odd number of bots: Walecki's cycles, each both ways (:func:`_whole_table_rounds`). Every random choice comes from one
generator seeded by the league's seed, so the same seed gives the same schedule.

The spreads reached (max - min over all pairs of bots, or ordered pairs, counted in
tables shared = deals when ``deals = 1``) are tested for 3-40 bots at tables of 2-7,
after each of the first rounds, and for up to 12 bots over 20 rounds
(tests/league_data/test_movement.py), and documented in the README:

- games per bot, seats per bot, first dealer per bot: equal after every round (spread 0);
- pair meetings: spread at most :data:`PAIR_SPREAD` by table size (1 for tables of 2, 2
  for 3, 3 for 4-5, 4 for 6-7) after each of rounds 1-3; most sizes reach 1-2, and
  tables of 6 reached 4 once in about 9,000 seeded checks (30 seeds for 3-16 bots, 6 for
  17-40, tables of 2-7, rounds 1-3); :data:`LONG_PAIR_SPREAD` (4) over 20 rounds for up
  to 12 bots; tables of 2: 1 after every round, for ever;
- neighbours ("b sat directly after a"): spread at most :data:`NEIGHBOUR_SPREAD` (3) after
  each of rounds 1-3, but 2 in all but 2 of those checks; :data:`LONG_NEIGHBOUR_SPREAD`
  (3) over 20 rounds for up to 12 bots; tables of 2: 1 (there a neighbour is a pair: a
  sits before b and b before a); k + 1 bots at tables of k: 0 after every round (pairs
  too); k bots at one table, k odd: 1;
- with ``deals = d``, pair meetings in deals are d times the counts in tables, and the
  neighbours' spread (in deals, each deal has its own cyclic order) is at most 1 more
  (tested with 2 deals for up to 16 bots).

Why not 0 or 1 everywhere: pairs can be equal only when the round's meetings divide
evenly over all pairs (after round 1 of 8 bots at tables of 4, 12 of the 28 pairs have
met: spread 1 at least); a sitting of one or two tables forces repeats (6 bots at tables
of 3: any second split into two tables of 3 repeats a pair at each table, pigeonhole);
at tables of 3 a pair's meetings split between its two directions, so an odd count
leaves a "directly after" gap; and for 4 bots at one table three rounds cannot give every
ordered pair exactly once (no three of the six directed 4-cycles are disjoint; Bermond and
Faber 1976 for 4 and 6 vertices), so the neighbours' spread is 2 there. Beyond these, the
figures are what the search reaches, not proven optima: it plans one round at a time, and
is weakest where a sitting holds one or two tables of 5-7 (15 bots at tables of 7: the
perfect design, every pair 3 times a round, has no two disjoint tables to share a sitting).

Pure: the fixtures of the first R rounds are a function of (bot names, table size,
deals, seed, R), and a prefix of those of any later round count, so a league may add
rounds as its budget allows and a resumed league replays nothing. No I/O, no clock.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from referee.schedule.fixture import Fixture, deal_hash
from referee.schedule.seating import Evenness, anneal_orders, successor_counts

# documented bounds on max - min, in tables shared (deals when deals = 1), tested
PAIR_SPREAD = {2: 1, 3: 2, 4: 3, 5: 3, 6: 4, 7: 4}  # pair meetings by table size, rounds 1-3, any seed
NEIGHBOUR_SPREAD = 3  # "b sat directly after a", rounds 1-3, any seed (2 nearly always)
LONG_PAIR_SPREAD = 4  # pair meetings, up to 12 bots, rounds 1-20
LONG_NEIGHBOUR_SPREAD = 3  # "b sat directly after a", up to 12 bots, rounds 1-20
_STEPS_PER_SEAT, _MOST_STEPS = 50, 6000  # annealing steps for a round's tables: per seat (tables x table size), at most
_ORDER_STEPS = 4000  # annealing steps for a round's seating orders
_HOT, _COLD = 3.0, 0.1  # annealing temperatures, in units of Evenness


@dataclass(frozen=True)
class RoundShape:
    """The shape of one movement round for ``bots`` bots at tables of ``table_size``.

    ``sittings[i]`` is the number of tables of sitting i; every bot plays ``tables_per_bot``
    of the ``tables`` and sits out ``byes_per_bot`` sittings."""

    bots: int
    table_size: int
    sittings: tuple[int, ...]

    @property
    def tables(self) -> int:
        return sum(self.sittings)

    @property
    def tables_per_bot(self) -> int:
        return self.table_size // math.gcd(self.bots, self.table_size)

    @property
    def byes_per_bot(self) -> int:
        return len(self.sittings) - self.tables_per_bot

    def games(self, deals: int) -> int:
        """Games in one round."""
        return self.tables * deals * self.table_size

    def games_per_bot(self, deals: int) -> int:
        """Games each bot plays in one round."""
        return self.tables_per_bot * deals * self.table_size


def round_shape(bots: int, table_size: int) -> RoundShape:
    """The :class:`RoundShape` (see the module doc). Needs ``2 <= table_size <= bots``."""
    common = math.gcd(bots, table_size)
    tables = bots // common
    most = bots // table_size
    count = -(-tables // most)
    base, extra = divmod(tables, count)
    return RoundShape(bots, table_size, tuple(base + (i < extra) for i in range(count)))


class _State:
    """What the search remembers across rounds: pair meetings (tables two bots shared) and
    neighbours (deals b sat directly after a), by bot index."""

    def __init__(self, names: Sequence[str], deals: int, seed: int) -> None:
        self.names = list(names)
        self.deals = deals
        self.meetings = [[0] * len(names) for _ in names]
        self.follows = [[0] * len(names) for _ in names]
        self.rng = random.Random(deal_hash(seed, "movement"))
        self._pairings: Iterator[list[list[list[int]]]] | None = None
        self.seated = False  # the rounds' tables come in their cyclic orders already

    def sittings(self, shape: RoundShape) -> list[list[list[int]]]:
        """The tables of each sitting of one round (bot indices); every bot sits out
        ``shape.byes_per_bot`` sittings. A greedy draw, then :meth:`_anneal`; tables of 2
        come from :func:`_two_seat_rounds` instead."""
        if shape.table_size == 2:
            if self._pairings is None:
                self._pairings = _two_seat_rounds(len(self.names), shape.sittings, self.rng)
            return next(self._pairings)
        if shape.table_size == len(self.names) - 1 or (shape.table_size == len(self.names) and len(self.names) % 2):
            if self._pairings is None:
                make = _one_table_rounds if shape.table_size < len(self.names) else _whole_table_rounds
                self._pairings = make(len(self.names), self.rng)
            self.seated = True
            return next(self._pairings)
        due = [shape.byes_per_bot] * len(self.names)
        tables: list[list[list[int]]] = []
        byes: list[list[int]] = []
        for count in shape.sittings:
            order = sorted(range(len(self.names)), key=lambda bot: (-due[bot], self.rng.random()))
            cut = len(self.names) - count * shape.table_size
            for bot in order[:cut]:
                due[bot] -= 1
            byes.append(order[:cut])
            tables.append(self._draw(order[cut:], shape.table_size))
        self._anneal(tables, byes, shape)
        return tables

    def _draw(self, players: list[int], size: int) -> list[list[int]]:
        """Split ``players`` into tables of ``size``, greedily: each next bot the one that met
        the table's bots least (their meetings are counted)."""
        left = list(players)
        self.rng.shuffle(left)
        drawn: list[list[int]] = []
        while left:
            table = [left.pop(0)]
            while len(table) < size:
                best = min(range(len(left)), key=lambda i: sum(self.meetings[left[i]][m] for m in table))
                table.append(left.pop(best))
            for first, second in combinations(table, 2):
                self.meetings[first][second] += 1
                self.meetings[second][first] += 1
            drawn.append(table)
        return drawn

    def _put(self, table: list[int], position: int, bot: int) -> float:
        """Seat ``bot`` at ``table[position]`` in place of its bot, counting the meetings;
        the change of their evenness."""
        meetings, old, penalty = self.meetings, table[position], self._evenness.penalty
        new_row, old_row = meetings[bot], meetings[old]
        change = 0.0
        for other in table:
            if other != old:
                gain, loss = new_row[other], old_row[other]
                change += penalty[gain + 1] - penalty[gain] + penalty[loss - 1] - penalty[loss]
                new_row[other] = gain + 1
                old_row[other] = loss - 1
                meetings[other][bot] += 1
                meetings[other][old] -= 1
        table[position] = bot
        return change

    def _swap_change(self, first: list[int], x: int, second: list[int], y: int) -> float:
        """The change of evenness if ``y`` took ``x``'s seat at table ``first`` and ``x`` took
        ``y``'s at ``second`` (a swap within a sitting, or a player-bye swap across two
        sittings, where a bot at both tables keeps both its pairs); nothing is changed."""
        penalty, x_row, y_row = self._evenness.penalty, self.meetings[x], self.meetings[y]
        change = 0.0
        for table, leaving, joining, there in ((first, x_row, y_row, second), (second, y_row, x_row, first)):
            for other in table:
                if other != x and other != y and other not in there:
                    gain, loss = joining[other], leaving[other]
                    change += penalty[gain + 1] - penalty[gain] + penalty[loss - 1] - penalty[loss]
        return change

    def _anneal(self, tables: list[list[list[int]]], byes: list[list[int]], shape: RoundShape) -> None:
        """Simulated annealing of the round's tables on the :class:`Evenness` of the pair
        meetings (so far and this round): swap two bots of two tables of one sitting, or a
        player and a bye of one sitting together with the same two in another sitting
        where their roles are the other way round (so byes per bot stay equal). Stops at
        the least the total allows (every pair within 1 of the mean)."""
        n, draw = len(self.names), self.rng.random
        evenness = self._evenness = Evenness(self.meetings, True, sum(map(sum, self.meetings)) // 2, shape.tables_per_bot)
        where = [[-1] * n for _ in tables]  # where[s][bot]: its table in sitting s, -1 = bye
        for number, sitting in enumerate(tables):
            for index, table in enumerate(sitting):
                for bot in table:
                    where[number][bot] = index
        steps = min(_MOST_STEPS, _STEPS_PER_SEAT * shape.tables * shape.table_size)
        put = self._put
        for step in range(steps):
            if evenness.cost <= evenness.least:
                return
            heat = _HOT * (_COLD / _HOT) ** (step / steps)
            number = int(draw() * len(tables))
            sitting = tables[number]
            first = int(draw() * len(sitting))
            i = int(draw() * shape.table_size)
            x = sitting[first][i]
            if byes[number] and (len(sitting) == 1 or draw() < 0.5):
                j = int(draw() * len(byes[number]))
                y = byes[number][j]
                others = [s for s, places in enumerate(where) if places[x] < 0 <= places[y]]
                if not others:
                    continue
                other = others[int(draw() * len(others))]
                second = where[other][y]
                change = self._swap_change(sitting[first], x, tables[other][second], y)
                if change <= 0 or draw() < math.exp(-change / heat):
                    put(sitting[first], i, y)
                    put(tables[other][second], tables[other][second].index(y), x)
                    byes[number][j] = x
                    byes[other][byes[other].index(x)] = y
                    where[number][x], where[number][y] = -1, first
                    where[other][x], where[other][y] = second, -1
                    evenness.cost += change
            elif len(sitting) > 1:
                second = int(draw() * (len(sitting) - 1))
                second += second >= first
                j = int(draw() * shape.table_size)
                y = sitting[second][j]
                change = self._swap_change(sitting[first], x, sitting[second], y)
                if change <= 0 or draw() < math.exp(-change / heat):
                    put(sitting[first], i, y)
                    put(sitting[second], j, x)
                    where[number][x], where[number][y] = second, first
                    evenness.cost += change


def _two_seat_rounds(bots: int, sizes: Sequence[int], rng: random.Random) -> Iterator[list[list[list[int]]]]:
    """Rounds of tables of 2 (bot indices, by sitting) in which every pair meets once per
    cycle of rounds, so pair meetings never differ by more than 1. An even number of bots:
    the circle method (a round is a perfect matching; n - 1 of them are every pair once).
    An odd number: Walecki's Hamiltonian cycles of the complete graph ((n - 1) / 2 of them
    are every pair once), a round being one cycle, whose tables (its edges) are shared out
    over the sittings ``sizes`` so that no bot plays twice in one sitting. The bots are
    relabelled, and the rounds of a cycle shuffled, from ``rng`` at every cycle."""
    hub, ring = bots - 1, bots - 1  # the fixed vertex, and how many go round it
    while True:
        label = list(range(bots))
        rng.shuffle(label)
        rounds: list[list[list[int]]] = []
        if bots % 2 == 0:
            for turn in range(ring):
                pairs = [[turn, hub]] + [[(turn + i) % ring, (turn - i) % ring] for i in range(1, bots // 2)]
                rounds.append([[label[a], label[b]] for a, b in pairs])
        else:
            for cycle in _walecki(bots):
                rounds.append([[label[cycle[i]], label[cycle[(i + 1) % bots]]] for i in range(bots)])
        rng.shuffle(rounds)
        for tables in rounds:
            if bots % 2 == 0:
                yield [tables]
            else:
                colours = _cyclic_colouring(list(sizes))
                yield [[table for table, colour in zip(tables, colours, strict=True) if colour == sitting] for sitting in range(len(sizes))]


def _walecki(bots: int) -> list[list[int]]:
    """Walecki's (bots - 1) / 2 Hamiltonian cycles of the complete graph on an odd number of
    ``bots`` (0 .. bots - 1): every pair of bots is consecutive in exactly one of them."""
    hub = ring = bots - 1
    return [[hub, turn] + [(turn + (i + 1) // 2 * (1 if i % 2 else -1)) % ring for i in range(1, ring)] for turn in range(ring // 2)]


def _whole_table_rounds(bots: int, rng: random.Random) -> Iterator[list[list[list[int]]]]:
    """Rounds of one table of all ``bots`` (an odd number), each in its cyclic order: the
    Walecki cycles, each also reversed, are every ordered pair once (a directed
    Hamiltonian decomposition), so "b directly after a" never differs by more than 1.
    Relabelled, and the rounds shuffled, from ``rng`` every bots - 1 rounds."""
    cycles = _walecki(bots)
    cycles += [cycle[::-1] for cycle in cycles]
    while True:
        label = list(range(bots))
        rng.shuffle(label)
        order = list(cycles)
        rng.shuffle(order)
        for cycle in order:
            yield [[[label[bot] for bot in cycle]]]


def _one_table_rounds(bots: int, rng: random.Random) -> Iterator[list[list[list[int]]]]:
    """Rounds for ``bots`` = table size + 1 (one table a sitting, each bot sits out once),
    each table already in its cyclic order, such that in every round every bot sits
    directly after every other exactly once. The bots are Z_n (n odd) or Z_(n-1) and a
    fixed point (n even); the tables are the translates of one starter table whose
    successor differences are all distinct (:func:`_starter`), plus, for n even, the
    table without the fixed point in the order 0, 1, 2, ... Relabelled from ``rng`` each
    round, so pair meetings (always equal here) and neighbours stay exactly even."""
    starter = _starter(bots)
    ring = bots if bots % 2 else bots - 1
    tables = [[bot if bot == ring else (bot + shift) % ring for bot in starter] for shift in range(ring)]
    if bots % 2 == 0:
        tables.append(list(range(ring)))
    while True:
        label = list(range(bots))
        rng.shuffle(label)
        order = list(tables)
        rng.shuffle(order)
        yield [[[label[bot] for bot in table]] for table in order]


def _starter(bots: int) -> list[int]:
    """A cyclic order of Z_n without 0 (n = ``bots`` odd), or of Z_(n-1) without 0 plus the
    fixed point n - 1 (n even), whose steps between consecutive members of Z (the fixed
    point left out) are all different: every nonzero step (n odd), every step but 0 and 1
    (n even). Found by search (4-8 bots, tables of 3-7: instantly)."""
    ring = bots if bots % 2 else bots - 1
    wanted = list(range(1, ring)) if bots % 2 else list(range(2, ring))
    rest = list(range(2, ring)) + ([] if bots % 2 else [ring])
    for tail in itertools.permutations(rest):
        seats = [1, *tail]
        steps = [(after - bot) % ring for bot, after in zip(seats, seats[1:] + seats[:1]) if ring not in (bot, after)]
        if sorted(steps) == wanted:
            return seats
    raise AssertionError(f"no starter table for {bots} bots")


def _cyclic_colouring(counts: list[int]) -> list[int]:
    """A cyclic sequence with ``counts[c]`` times colour c and no colour twice in a row
    (first and last count as in a row): the sittings of a cycle's edges, found by search."""
    total = sum(counts)
    sequence: list[int] = []

    def extend() -> bool:
        if len(sequence) == total:
            return sequence[0] != sequence[-1]
        for colour in sorted(range(len(counts)), key=lambda c: -counts[c]):
            if counts[colour] and (not sequence or sequence[-1] != colour):
                counts[colour] -= 1
                sequence.append(colour)
                if extend():
                    return True
                sequence.pop()
                counts[colour] += 1
        return False

    if not extend():
        raise AssertionError(f"no cyclic colouring for {counts}")  # each count <= total / 2 always has one
    return sequence


def movement_fixtures(bot_names: Sequence[str], table_size: int, deals: int, seed: int, rounds: int) -> list[Fixture]:
    """The fixtures of the first ``rounds`` rounds (see the module doc), in playing order:
    round by round, sitting by sitting, then deal by deal and rotation by rotation with
    the sitting's tables interleaved. ``game_id``: ``"rd02-t05-d1-r3"`` = round 2, table 5
    of that round, deal 1, rotation 3. ``bot_names`` are sorted first (their order does
    not matter); the caller has checked them (:func:`referee.schedule.make_fixtures`)."""
    fixtures: list[Fixture] = []
    for _, games in zip(range(rounds), movement_rounds(bot_names, table_size, deals, seed)):
        fixtures += games
    return fixtures


def movement_rounds(bot_names: Sequence[str], table_size: int, deals: int, seed: int) -> Iterator[list[Fixture]]:
    """The fixtures of round 1, round 2, ... without end (:func:`movement_fixtures` takes
    the first few); a league played round by round keeps one of these."""
    names = sorted(bot_names)
    shape = round_shape(len(names), table_size)
    state = _State(names, deals, seed)
    width = max(2, len(str(shape.tables)))
    count = 0
    for number in itertools.count():
        fixtures: list[Fixture] = []
        sittings = state.sittings(shape)
        # every (sitting, table, deal)'s cyclic order, annealed for even neighbours
        slots = [(sitting, table, deal) for sitting, tables in enumerate(sittings) for table in range(len(tables)) for deal in range(deals)]
        chosen = [list(sittings[s][t]) for s, t, _ in slots]
        for order in chosen:
            successor_counts(order, state.follows, 1)
        if table_size > 2 and not state.seated:
            anneal_orders(chosen, state.follows, state.rng, _ORDER_STEPS)
        orders = {slot: tuple(names[bot] for bot in order) for slot, order in zip(slots, chosen, strict=True)}
        table_number = 0
        for sitting_number, sitting in enumerate(sittings):
            for deal in range(deals):
                for rotation in range(table_size):
                    for position in range(len(sitting)):
                        base = orders[(sitting_number, position, deal)]
                        key = ",".join(sorted(base))
                        fixtures.append(
                            Fixture(
                                index=count,
                                table=base,
                                deal=deal,
                                rotation=rotation,
                                seats=base[rotation:] + base[:rotation],
                                seed=deal_hash(seed, "movement", number, sitting_number, key, deal),
                                first_dealer=deal_hash(seed, "movement", number, sitting_number, key, deal, "dealer") % table_size,
                                game_id=f"rd{number + 1:02d}-t{table_number + position + 1:0{width}d}-d{deal + 1}-r{rotation + 1}",
                                round=number,
                            )
                        )
                        count += 1
            table_number += len(sitting)
        yield fixtures
