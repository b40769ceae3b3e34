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

**Balance (greedy, seeded).** Byes go first to the bots with the most byes still due this
round. Tables are drawn greedily so that bots who met least sit together, then improved by
swapping bots between tables, or between a table and the byes (when the later sittings can
still give every bot its byes: the Gale-Ryser condition), while that lowers the sum of
squared pair meetings. Each
table's cyclic seating order is chosen by :func:`referee.seating.balanced_order`, so
that who sits directly after whom stays even. The spreads this reaches (max - min over
all pairs) are tested for 3-40 bots at tables of 2-7, after each of the first rounds
(tests/league_data/test_movement.py), and documented in the README:

- games per bot, seats per bot, first dealer per bot: equal after every round (spread 0);
- pair meetings (deals two bots shared a table): spread <= 6 (:data:`PAIR_SPREAD`);
  at most 5 in the exhaustive test, and 1-3 for most sizes (the greedy is weakest when a
  sitting has only one or two tables, e.g. 16 bots at tables of 7);
- neighbours (deals b sat directly after a): spread <= 4 (:data:`NEIGHBOUR_SPREAD`),
  at most 3 in the exhaustive test.

Pure: the fixtures of the first R rounds are a function of (bot names, table size,
deals, seed, R), and a prefix of those of any later round count, so a league may add
rounds as its budget allows and a resumed league replays nothing. No I/O, no clock.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from referee.schedule import Fixture, deal_hash
from referee.seating import Follows, balanced_order, rebalance

PAIR_SPREAD = 6  # documented bound on max - min pair meetings (in deals), tested
NEIGHBOUR_SPREAD = 4  # documented bound on max - min "directly after" counts (in deals), tested
_SWAP_PASSES = 8


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
    """What the greedy remembers across rounds: pair meetings (in deals, by bot index) and
    neighbours."""

    def __init__(self, names: Sequence[str], deals: int, seed: int) -> None:
        self.names = list(names)
        self.deals = deals
        self.meetings = [[0] * len(names) for _ in names]
        self.follows: Follows = Counter()
        self.rng = random.Random(deal_hash(seed, "movement"))

    def sittings(self, shape: RoundShape) -> list[list[list[str]]]:
        """The tables of each sitting of one round; every bot sits out ``shape.byes_per_bot``."""
        due = [shape.byes_per_bot] * len(self.names)
        out: list[list[list[str]]] = []
        counts = [len(self.names) - tables * shape.table_size for tables in shape.sittings]
        for number, tables in enumerate(shape.sittings):
            count = counts[number]
            self._later = counts[number + 1 :]
            order = sorted(range(len(self.names)), key=lambda bot: (-due[bot], self.rng.random()))
            byes, players = order[:count], order[count:]
            sitting = self._tables(players, shape.table_size)
            for _ in range(_SWAP_PASSES):
                if not self._improve(sitting, byes, due):
                    break
            for bot in byes:
                due[bot] -= 1
            for table in sitting:
                for first, second in combinations(table, 2):
                    self.meetings[first][second] += self.deals
                    self.meetings[second][first] += self.deals
            out.append([[self.names[bot] for bot in table] for table in sitting])
        return out

    def _tables(self, players: list[int], size: int) -> list[list[int]]:
        """Split ``players`` into tables of ``size``, greedily: each next bot the one that met
        the table's bots least."""
        left = list(players)
        self.rng.shuffle(left)
        tables: list[list[int]] = []
        while left:
            table = [left.pop(0)]
            while len(table) < size:
                best = min(range(len(left)), key=lambda i: sum(self.meetings[left[i]][m] for m in table))
                table.append(left.pop(best))
            tables.append(table)
        return tables

    def _improve(self, tables: list[list[int]], byes: list[int], due: list[int]) -> bool:
        """One pass of swaps that lower the sum of squared meetings: between two tables, and
        between a table and the byes (only bots with as many byes still due, so the byes
        of the rest of the round stay possible)."""
        meetings = self.meetings

        def sums(table: list[int], bots: list[int]) -> list[int]:
            return [sum(meetings[bot][other] for other in table) for bot in bots]

        # Swapping a (of A) and b (of B) changes sum((m+1)^2 - m^2) of the pairs made by
        # 2 * ((S_A(b) - m[a][b] - S_A(a)) + (S_B(a) - m[a][b] - S_B(b))), S_T(x) = sum of m[x][t], t in T.
        improved = False
        for first, second in combinations(range(len(tables)), 2):
            a_table, b_table = tables[first], tables[second]
            swapped = True
            while swapped:
                swapped = False
                in_a, a_in_b = sums(a_table, a_table), sums(b_table, a_table)
                in_b, b_in_a = sums(b_table, b_table), sums(a_table, b_table)
                for i, a in enumerate(a_table):
                    for j, b in enumerate(b_table):
                        if b_in_a[j] + a_in_b[i] - 2 * meetings[a][b] < in_a[i] + in_b[j]:
                            a_table[i], b_table[j] = b, a
                            improved = swapped = True
                            break
                    if swapped:
                        break
        for table in tables:
            for i in range(len(table)):
                for j in range(len(byes)):
                    a, b = table[i], byes[j]
                    if sum(meetings[b][o] - meetings[a][o] for o in table if o != a) < 0 and self._byes_fit(due, byes, b, a):
                        table[i], byes[j] = b, a
                        improved = True
        return improved

    _later: list[int] = []  # bye counts of the round's later sittings

    def _byes_fit(self, due: list[int], byes: list[int], leaving: int, joining: int) -> bool:
        """Whether the later sittings can still give every bot its due byes if ``leaving``
        plays instead of sitting out and ``joining`` sits out (Gale-Ryser)."""
        rest = [d - (bot in byes and bot != leaving) - (bot == joining) for bot, d in enumerate(due)]
        return _realizable(rest, self._later)


def _realizable(rows: list[int], columns: list[int]) -> bool:
    """Gale-Ryser: is there a 0/1 matrix with these row and column sums?"""
    if min(rows, default=0) < 0 or sum(rows) != sum(columns):
        return False
    ordered = sorted(rows, reverse=True)
    total = 0
    for k, row in enumerate(ordered, start=1):
        total += row
        if total > sum(min(column, k) for column in columns):
            return False
    return True


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
        # every (sitting, table, deal)'s cyclic order, chosen greedily then rebalanced
        slots = [(sitting, table, deal) for sitting, tables in enumerate(sittings) for table in range(len(tables)) for deal in range(deals)]
        chosen = [balanced_order(sittings[s][t], state.follows, state.rng) for s, t, _ in slots]
        orders = dict(zip(slots, rebalance(chosen, state.follows, state.rng), strict=True))
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
