"""Looking ahead from a seat's view (docs/protocol.md, "Looking ahead").

A bot cannot see the other hands, so it deals them itself: :func:`determinize` draws a
complete deal of the cards this seat has not seen, consistent with everything it has seen,
every such deal equally likely. :meth:`Deal.state` makes it a game of the referee's own
engine (``referee.game.engine.Game``), at the view's position under the game's rules and
variants, and :func:`playout` plays that game to its end with a policy for every seat:

    import random
    from referee.botkit.search import determinize, heuristic, playout, points

    rng = random.Random()
    deal = determinize(view, rng)    # who holds which unseen card, and a seed for later rounds
    for action in view.legal:
        state = deal.state()         # a fresh Game at the view's position
        state.apply(view.seat, action)
        playout(state, heuristic)    # every seat plays the sample heuristic to the game's end
        print(action, points(state, view.seat))

What a deal respects (docs/rules.md §1, §2): this seat's hand; every card played this round,
and who played it; each suit a seat showed it lacks by not following it (R12); how many
cards each seat still holds (a dog one, R17-R18; a seat out none); the turn-up, held by
nobody (R7); and a face-down dog's card (``dog_play = "first_trick"``, W24), which may be any
card not seen. Trump and who named it, the dealer, the dog's life and the seats knocked out
are the view's and the state keeps them; who named trump is no proof of what they hold, so
it does not bend the deal. Earlier rounds were dealt from other decks and tell nothing of
this one: the view alone (no event) is what a look-ahead needs. Later rounds are dealt from
the deal's ``seed``, as unknown to the bot as the referee's.

All of it runs in the bot's process, on the bot's own view: the referee's game, and its
hands, are in another process.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from math import factorial

from referee.botkit.bot import Bot
from referee.botkit.heuristic import HeuristicBot
from referee.game.cards import CARDS, Card, Suit
from referee.game.dealing import deal_positions
from referee.game.engine import Game, RoundStart
from referee.game.views import Action, ChooseTrump, DecisionKind, Pass, Play, RoundEnded, SeatStatus, SeatView, Trick

Policy = Callable[[SeatView], Action]
"""A strategy for any seat: its view (with ``legal``) -> one of ``view.legal``."""

_OUT, _DOG = SeatStatus.OUT, SeatStatus.DOG
_SUITS = tuple(Suit)
_FREE = frozenset(Suit)
_SEED_BITS = 63


@dataclass(frozen=True)
class Deal:
    """One complete deal of this round consistent with ``view`` (:func:`determinize`).

    ``held[seat]``: the cards each seat holds now, in deck order (the view's own hand for its
    seat, () for a seat out); ``face_down[seat]``: the card under another seat's face-down
    play in the current trick; ``undealt``: the cards dealt to nobody, the turn-up aside;
    ``seed``: deals the later rounds (and ``trump_tiebreak = "cut"`` draws) of the state.
    """

    view: SeatView
    held: tuple[tuple[Card, ...], ...]
    face_down: Mapping[int, Card]
    undealt: tuple[Card, ...]
    seed: int

    def dealt(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` was dealt this round: held now, or played (face down too)."""
        played = []
        for trick in _tricks(self.view):
            for play in trick.plays:
                if play.seat == seat and (play.card is not None or play.face_down):
                    played.append(self.face_down[seat] if play.card is None else play.card)
        return self.held[seat] + tuple(played)

    def state(self) -> Game:
        """A new game of the referee's engine at the view's position: the round dealt as this
        deal says, this round's trump choice and plays made again, the same rules and variants.
        Each call gives a fresh game, to be played on at will (``state.apply``, :func:`playout`).
        Seats out before this round count as knocked out in round 0 (the view does not say
        when; no decision of a seat still in can change their places)."""
        view = self.view
        positions, dealt = deal_positions(list(range(len(CARDS))), view.dealer, view.status, view.hand_size)
        deck: list[Card | None] = [None] * len(CARDS)
        for seat, places in enumerate(positions):
            for place, card in zip(places, self.dealt(seat), strict=True):
                deck[place] = card
        if view.turn_up is not None:
            deck[dealt if view.rules.turn_up == "top" else len(CARDS) - 1] = view.turn_up
        rest = iter(self.undealt)
        cards = tuple(card if card is not None else next(rest) for card in deck)
        start = RoundStart(view.round_number, view.dealer, view.status, view.trump_chooser, view.dog_life_used)
        game = Game(view.num_seats, view.rules, self.seed, game_id=view.game_id, decks={view.round_number: cards}, start=start)
        if view.trump_chooser is not None and (view.trump is not None or view.no_trump):
            game.apply(view.trump_chooser, ChooseTrump(view.trump))
        for trick in _tricks(view):
            for play in trick.plays:
                played = play.card if play.card is not None or not play.face_down else self.face_down[play.seat]
                game.apply(play.seat, Pass() if played is None else Play(played))
        return game


def determinize(view: SeatView, rng: random.Random) -> Deal:
    """A deal of the cards ``view``'s seat has not seen, drawn from ``rng``: every deal
    consistent with the view (module doc) equally likely, and a seed for later rounds.

    Raises ValueError for a view no deal fits (not one the referee sends).
    """
    hidden = _hidden(view)
    cards = hidden.sample(rng)
    held = [list(hand) for hand in hidden.known]
    face_down: dict[int, Card] = {}
    undealt: list[Card] = []
    for holder, group in zip(hidden.holders, cards, strict=True):
        rng.shuffle(group)
        start = 0
        for seat, count in holder:
            taken, start = group[start : start + count], start + count
            if seat < 0:
                undealt = taken
            elif seat >= view.num_seats:
                face_down[seat - view.num_seats] = taken[0]
            else:
                held[seat] += taken
    return Deal(
        view=view,
        held=tuple(tuple(sorted(hand, key=_ORDER.__getitem__)) for hand in held),
        face_down=face_down,
        undealt=tuple(undealt),
        seed=rng.getrandbits(_SEED_BITS),
    )


def playout(state: Game, policy: Policy, *, round_only: bool = False) -> None:
    """Play ``state`` on, every seat by ``policy``: to the end of the game, or with
    ``round_only`` to the end of the current round (then :func:`points` counts the seats
    still in as equals). Raises ``IllegalAction`` when the policy answers an action not in
    ``view.legal``."""
    round_number = state.round_number
    while not state.over and not (round_only and state.round_number != round_number):
        seat = state.to_act
        assert seat is not None
        state.apply(seat, policy(state.view(seat)))


def points(state: Game, seat: int) -> float:
    """What the standings count for ``seat`` in the game ``state`` (docs/design.md §7): 1 per
    opponent it outlasted, 1/2 per opponent placed equal (rules.md R21). Before the game's
    end, as if it ended now with every seat still in sharing the best place; seats
    knocked out in the same round share a place, seats out before the state's first round
    count as out together."""
    if state.outcome is not None:
        places: Sequence[int] = state.outcome.placements
    else:
        out = [0 if standing is _OUT else len(CARDS) for standing in state.view(seat).status]  # still in: "never"
        for event in state.events:
            if type(event) is RoundEnded:
                for knocked in event.knocked_out:
                    out[knocked] = event.round_number
        places = [-when for when in out]
    mine = places[seat]
    return sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0 for other, theirs in enumerate(places) if other != seat)


def policy_of(bot: Bot) -> Policy:
    """``bot``'s ``play`` and ``choose_trump`` as a :data:`Policy` (None: a pass, no trump)."""

    def policy(view: SeatView) -> Action:
        if view.decision is DecisionKind.CHOOSE_TRUMP:
            return ChooseTrump(bot.choose_trump(view))
        card = bot.play(view)
        return Pass() if card is None else Play(card)

    return policy


heuristic: Policy = policy_of(HeuristicBot())
"""The sample heuristic (:mod:`referee.botkit.heuristic`) as a ready policy."""


# --- drawing the unseen cards evenly ------------------------------------------------------

_ORDER = {card: index for index, card in enumerate(CARDS)}
Holder = tuple[tuple[int, int], ...]
"""The (seat, count) slots of one group of holders: seat ``s`` a seat's hand, ``num_seats + s``
its face-down card, -1 the undealt cards."""


@dataclass(frozen=True)
class _Hidden:
    """The unseen cards of a view and where they may go.

    ``known[seat]``: the cards of ``seat`` the view shows it holds (its own hand);
    ``suits``: the unseen cards of each suit; ``holders``: groups of slots that take the same
    suits, ``allowed[i]`` the suits of group ``i``, the last group the slots that take any
    card (hands with no void shown, face-down cards, the undealt cards: ``undealt`` of
    them, last); ``ways[(i, caps)]``: the options for suit ``i`` with ``caps`` left in the
    restricted groups, as (counts, cumulative number of deals)."""

    known: tuple[tuple[Card, ...], ...]
    suits: tuple[tuple[Card, ...], ...]
    holders: tuple[Holder, ...]
    allowed: tuple[frozenset[Suit], ...]
    undealt: int
    ways: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]]

    def sample(self, rng: random.Random) -> list[list[Card]]:
        """The unseen cards split among the groups of ``holders``: the restricted groups
        first, the free group last; each split drawn with its share of the deals.
        Raises ValueError when no deal fits."""
        restricted = len(self.holders) - 1
        groups: list[list[Card]] = [[] for _ in self.holders]
        caps = tuple(sum(count for _, count in holder) for holder in self.holders[:restricted])
        for index, cards in enumerate(self.suits):
            options, cumulative = self._options(index, caps)
            if not options:
                raise ValueError("no deal fits this view: the seats' void suits leave too few cards")
            counts = options[bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            pool = list(cards)
            rng.shuffle(pool)
            start = 0
            for group, count in enumerate(counts):
                groups[group] += pool[start : start + count]
                start += count
            groups[-1] += pool[start:]
            caps = tuple(cap - count for cap, count in zip(caps, counts))
        return groups

    def _options(self, index: int, caps: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
        """How suit ``index`` may split among the restricted groups with ``caps`` left (the
        rest to the free group), and the cumulative number of whole deals each allows."""
        key = (index, caps)
        found = self.ways.get(key)
        if found is not None:
            return found
        cards = len(self.suits[index])
        free_room = sum(len(suit) for suit in self.suits[index:]) - sum(caps)
        options: list[tuple[int, ...]] = []
        weights: list[int] = []
        for counts in _splits(cards, [cap if _SUITS[index] in self.allowed[group] else 0 for group, cap in enumerate(caps)]):
            rest = cards - sum(counts)
            if rest > free_room:
                continue
            after = tuple(cap - count for cap, count in zip(caps, counts))
            later = self._count(index + 1, after)
            if later:
                ways = factorial(cards) // factorial(rest)
                for count in counts:
                    ways //= factorial(count)
                options.append(counts)
                weights.append(ways * later)
        found = self.ways[key] = (options, list(accumulate(weights)))
        return found

    def _count(self, index: int, caps: tuple[int, ...]) -> int:
        """The number of ways to deal the suits from ``index`` on with ``caps`` left."""
        if index == len(self.suits):
            return 0 if any(caps) else 1
        cumulative = self._options(index, caps)[1]
        return cumulative[-1] if cumulative else 0


def _splits(total: int, caps: Sequence[int]) -> list[tuple[int, ...]]:
    """Every (n_0, ..., n_k) with 0 <= n_i <= caps[i] and sum <= ``total``."""
    if not caps:
        return [()]
    return [(first, *rest) for first in range(min(total, caps[0]) + 1) for rest in _splits(total - first, caps[1:])]


def _tricks(view: SeatView) -> tuple[Trick, ...]:
    """This round's tricks, the current one last."""
    return view.completed_tricks + (() if view.current_trick is None else (view.current_trick,))


@lru_cache(maxsize=32)
def _hidden(view: SeatView) -> _Hidden:
    """What :func:`determinize` draws from for ``view`` (kept for the next draws of the same view)."""
    me, seats = view.seat, view.num_seats
    seen: set[Card] = set(view.hand)
    if view.turn_up is not None:
        seen.add(view.turn_up)
    played = [0] * seats
    hidden_face_down: list[int] = []
    void: list[set[Suit]] = [set() for _ in range(seats)]
    for trick in _tricks(view):
        led: Suit | None = None
        for play in trick.plays:
            if play.card is None:
                if play.face_down:  # another seat's face-down card: any card not seen
                    played[play.seat] += 1
                    hidden_face_down.append(play.seat)
                continue  # a pass
            seen.add(play.card)
            played[play.seat] += 1
            if play.face_down:
                continue  # a face-down card leads no suit, and a dog holds nothing after it
            if led is None:
                led = play.card.suit
            elif play.card.suit is not led:
                void[play.seat].add(led)  # did not follow: holds none of the suit led (R12)
    left = [0] * seats
    for seat, standing in enumerate(view.status):
        if seat != me and standing is not _OUT:
            left[seat] = (1 if standing is _DOG else view.hand_size) - played[seat]
    dealt = sum(1 if standing is _DOG else view.hand_size for standing in view.status if standing is not _OUT)
    undealt = len(CARDS) - dealt - (view.turn_up is not None)
    unseen = [card for card in CARDS if card not in seen]
    if min(left) < 0 or undealt < 0 or len(unseen) != sum(left) + len(hidden_face_down) + undealt:
        raise ValueError(f"no deal fits this view: {len(unseen)} unseen cards for {sum(left)} held, "
                         f"{len(hidden_face_down)} face down and {undealt} undealt")  # fmt: skip
    groups: dict[frozenset[Suit], list[tuple[int, int]]] = {}
    free: list[tuple[int, int]] = []
    for seat in range(seats):
        if left[seat] == 0:
            continue
        allowed = _FREE - void[seat]
        (free if allowed == _FREE else groups.setdefault(allowed, [])).append((seat, left[seat]))
    free += [(seats + seat, 1) for seat in hidden_face_down]
    free.append((-1, undealt))
    restricted = sorted(groups.items(), key=lambda item: item[1])
    known = tuple(tuple(view.hand) if seat == me else () for seat in range(seats))
    return _Hidden(
        known=known,
        suits=tuple(tuple(card for card in unseen if card.suit is suit) for suit in _SUITS),
        holders=(*(tuple(slots) for _, slots in restricted), tuple(free)),
        allowed=(*(allowed for allowed, _ in restricted), _FREE),
        undealt=undealt,
        ways={},
    )
