"""The bot kit's look-ahead (``referee.botkit.search``): every deal it draws is one the seat's
view allows, and the deals the view allows are drawn evenly.

What "allows" means is checked by the referee's own engine, not by the kit's reasoning: a
deal fits the view when the game made from it (:meth:`Deal.state`) takes this round's
actions again without an ``IllegalAction`` and shows the seat the very same view. Beside it,
a count written here: every card once, each seat holding what the true game says it holds.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from referee.botkit.search import Deal, determinize, heuristic, playout, points
from referee.errors import IllegalAction
from referee.game.cards import CARDS, Card
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Play, SeatView

RULES = st.builds(
    Rules,
    required_tricks=st.sampled_from(["one", "strict"]),
    dog_life=st.sampled_from(["round1", "any_round", "off"]),
    dog_play=st.sampled_from(["choose_trick", "first_trick"]),
    turn_up=st.sampled_from(["top", "bottom"]),
    trump_tiebreak=st.sampled_from(["dealer_left", "cut"]),
    allow_no_trump=st.booleans(),
    first_lead=st.sampled_from(["dealer_left", "trump_chooser"]),
)


def random_position(num_seats: int, rules: Rules, seed: int, steps: int) -> Game | None:
    """A game of random legal actions (a dog passes half the time it may), ``steps`` in;
    None when the game ended first."""
    game = Game(num_seats, rules, seed, game_id=f"g{seed}")
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return None
        assert game.to_act is not None
        game.apply(game.to_act, rng.choice(game.legal_actions()))
    return None if game.over else game


def seen_cards(view: SeatView) -> list[Card]:
    """The cards the view shows: the hand, the turn-up, every card played face up or revealed."""
    cards = list(view.hand) + ([view.turn_up] if view.turn_up is not None else [])
    tricks = view.completed_tricks + ((view.current_trick,) if view.current_trick else ())
    return cards + [play.card for trick in tricks for play in trick.plays if play.card is not None]


def fits(deal: Deal) -> bool:
    """The engine's word: the game made from ``deal`` replays this round and shows the same view."""
    try:
        return deal.state().view(deal.view.seat) == deal.view
    except IllegalAction:
        return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=RULES,
    num_seats=st.integers(2, 7),
    size=st.integers(1, 7),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 160),
    draw=st.integers(0, 2**32),
)
def test_no_deal_contradicts_the_view(rules: Rules, num_seats: int, size: int, seed: int, steps: int, draw: int) -> None:
    rules = Rules(**{**rules.as_dict(), "start_hand_size": min(size, 51 // num_seats)})  # type: ignore[arg-type]
    game = random_position(num_seats, rules, seed, steps)
    if game is None:
        return
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    deal = determinize(view, random.Random(draw))
    state = deal.state()  # replays the round on the deal: IllegalAction if a seat held a suit it did not follow
    assert state.view(seat) == view
    for other in range(num_seats):  # each seat holds as many cards as in the true game, and its own hand
        assert len(deal.held[other]) == len(game.view(other).hand)
        assert state.view(other).hand == deal.held[other]
    assert deal.held[seat] == view.hand
    hidden = [card for other in range(num_seats) if other != seat for card in deal.held[other]]
    hidden += [*deal.face_down.values(), *deal.undealt]
    everything = Counter(seen_cards(view) + hidden)
    assert set(everything) == set(CARDS) and set(everything.values()) == {1}, "every card exactly once"
    playout(state, heuristic)  # the engine plays the made-up game on to its end
    assert state.over and 0 <= points(state, seat) <= num_seats - 1


def test_a_void_suit_is_never_dealt_back() -> None:
    """A seat that did not follow the suit led is never dealt a card of it (rules.md R12)."""
    rng = random.Random(4)
    for seed in range(200):
        game = Game(3, Rules(start_hand_size=5), seed=seed, game_id="void")
        leader = game.to_act
        assert leader is not None
        lead = game.view(leader).hand[0]
        game.apply(leader, Play(lead))
        second = game.to_act
        assert second is not None
        if any(card.suit is lead.suit for card in game.view(second).hand):
            continue
        game.apply(second, game.legal_actions()[0])
        assert game.to_act is not None
        view = game.view(game.to_act)
        for _ in range(200):
            assert not any(card.suit is lead.suit for card in determinize(view, rng).held[second])
        return
    pytest.fail("no seed gave a seat void in the suit led")


# --- evenness on small positions ----------------------------------------------------------


def consistent_deals(view: SeatView, held_counts: dict[int, int]) -> set[tuple[object, ...]]:
    """Every deal the engine accepts for ``view``, found by trying every assignment of the
    unseen cards to the other seats' cards and face-down plays (the rest undealt)."""
    unseen = [card for card in CARDS if card not in set(seen_cards(view))]
    current = view.current_trick.plays if view.current_trick is not None else ()
    face_down = [play.seat for play in current if play.card is None and play.face_down]
    slots = [seat for seat, count in sorted(held_counts.items()) for _ in range(count)] + [-1 - seat for seat in face_down]
    found: set[tuple[object, ...]] = set()
    for chosen in permutations(unseen, len(slots)):
        held: dict[int, list[Card]] = {seat: [] for seat in held_counts}
        down: dict[int, Card] = {}
        for slot, card in zip(slots, chosen):
            if slot >= 0:
                held[slot].append(card)
            else:
                down[-1 - slot] = card
        hands = tuple(
            view.hand if seat == view.seat else tuple(sorted(held.get(seat, []), key=CARDS.index)) for seat in range(view.num_seats)
        )
        undealt = tuple(card for card in unseen if card not in chosen)
        key = deal_key(hands, down)
        if key not in found and fits(Deal(view, hands, down, undealt, seed=0)):
            found.add(key)
    return found


def deal_key(held: tuple[tuple[Card, ...], ...], face_down: dict[int, Card]) -> tuple[object, ...]:
    return (held, tuple(sorted(face_down.items())))


def small_positions() -> list[tuple[str, Game]]:
    """Positions of one kind each, found by playing seeded random games with few cards: few
    unseen cards in the other hands, so every consistent deal can be listed."""
    kinds: dict[str, Game] = {}
    setups = [
        (3, Rules(start_hand_size=2)),
        (2, Rules(start_hand_size=3, turn_up="bottom")),
        (3, Rules(start_hand_size=2, dog_play="first_trick")),
        (4, Rules(start_hand_size=2, dog_play="first_trick", dog_life="any_round")),
    ]
    for seed in range(3000):
        num_seats, rules = setups[seed % len(setups)]
        game = random_position(num_seats, rules, seed, random.Random(-seed).randrange(1, 40))
        if game is None or game.to_act is None:
            continue
        view = game.view(game.to_act)
        counts = {seat: len(game.view(seat).hand) for seat in range(num_seats) if seat != view.seat}
        current = view.current_trick.plays if view.current_trick is not None else ()
        hidden_down = sum(play.card is None and play.face_down for play in current)
        if sum(counts.values()) + hidden_down > 2 or sum(counts.values()) + hidden_down == 0:
            continue
        voids = sum(1 for seat, count in counts.items() if count and shows_void(view, seat))
        kind = "face-down" if hidden_down else "two voids" if voids >= 2 else "void" if voids else "free"
        kinds.setdefault(kind, game)
        if len(kinds) == 4:
            break
    return sorted(kinds.items())


def shows_void(view: SeatView, seat: int) -> bool:
    tricks = view.completed_tricks + ((view.current_trick,) if view.current_trick else ())
    for trick in tricks:
        faced = [play for play in trick.plays if play.card is not None and not play.face_down]
        if any(play.seat == seat and play.card is not None and play.card.suit is not faced[0].card.suit for play in faced[1:]):  # type: ignore[union-attr]
            return True
    return False


def test_small_positions_cover_every_kind() -> None:
    assert [kind for kind, _ in small_positions()] == ["face-down", "free", "two voids", "void"]


@pytest.mark.parametrize("kind, game", small_positions(), ids=lambda value: value if isinstance(value, str) else "")
def test_consistent_deals_are_drawn_evenly(kind: str, game: Game) -> None:
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    counts = {other: len(game.view(other).hand) for other in range(game.num_seats) if other != seat}
    deals = consistent_deals(view, counts)
    assert 2 <= len(deals) <= 3000, len(deals)
    rng = random.Random(f"even:{kind}")
    drawn: Counter[tuple[object, ...]] = Counter()
    for _ in range(12 * len(deals)):
        deal = determinize(view, rng)
        drawn[deal_key(deal.held, dict(deal.face_down))] += 1
    assert set(drawn) <= deals, "a drawn deal that the engine refuses"
    observed = [drawn[key] for key in sorted(deals, key=repr)]
    result = chisquare(observed)
    assert result.pvalue > 1e-4, (kind, len(deals), result)  # seeded: the same draws every run
