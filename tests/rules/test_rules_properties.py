"""W21: seeded random games over every combination of variants, 2-7 players.

Every game is checked against invariants written independently of the engine (deal
positions R6, trick winners R13, follow suit R12, the end of a round R16/R17 and the
strict fallback, dealers R5, choosers R9, placements R21) and replayed from
(seed, first dealer, decks, actions) to the same events, rounds and outcome.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import IllegalAction
from referee.game.cards import CARDS, Card, Suit
from referee.game.engine import Game, RoundRecord, replay
from referee.game.rules import Rules
from referee.game.views import Action, ChooseTrump, GameEnded, Pass, Play, RoundEnded, RoundStarted, SeatStatus, Trick
from tests.rules.rules_helpers import DOG, IN, OUT, recipients

VARIANTS = [
    Rules(*values)  # type: ignore[arg-type]
    for values in product(
        ["one", "strict"],
        ["round1", "any_round", "off"],
        ["choose_trick", "first_trick"],
        ["top", "bottom"],
        ["dealer_left", "cut"],
        [False, True],
        ["dealer_left", "trump_chooser"],
    )
]
GAMES_PER_VARIANT = 11  # 192 variants x 11 = 2112 games; each variant sees 2..7 players


def setup_for(index: int) -> tuple[int, Rules, int, int | None, dict[int, tuple[Card, ...]]]:
    """(num_seats, rules, seed, first_dealer, decks) of random game ``index``."""
    rng = random.Random(f"setup:{index}")
    base = VARIANTS[index % len(VARIANTS)]
    num_seats = 2 + (index // len(VARIANTS) + index) % 6
    size = 7 if rng.random() < 0.6 else rng.randint(1, min(7, 51 // num_seats))
    rules = Rules(**{**base.as_dict(), "start_hand_size": size})  # type: ignore[arg-type]
    first_dealer = rng.randrange(num_seats) if rng.random() < 0.5 else None
    decks = {rng.randint(1, 7): tuple(rng.sample(CARDS, 52))} if rng.random() < 0.2 else {}
    return num_seats, rules, index, first_dealer, decks


def play_random(
    game: Game, rng: random.Random, forfeit_rate: float = 0.0
) -> tuple[list[tuple[int, Action]], list[tuple[int, int]]]:
    """Play ``game`` out with random legal actions; sometimes try an illegal one first."""
    actions: list[tuple[int, Action]] = []
    forfeits: list[tuple[int, int]] = []
    while not game.over:
        seat = game.to_act
        assert seat is not None
        if forfeit_rate and rng.random() < forfeit_rate:
            forfeiter = rng.randrange(game.num_seats)
            forfeits.append((len(actions), forfeiter))
            game.forfeit(forfeiter)
        legal = game.legal_actions()
        assert legal, "a seat to act with no legal action"
        if rng.random() < 0.02:
            check_rejection(game, seat, legal, rng)
        if rng.random() < 0.1:
            view = game.view(seat)
            assert view.legal == legal and view.decision is game.decision() and view.seat == seat
            assert all(game.view(other).legal == () for other in range(game.num_seats) if other != seat)
        action = legal[rng.randrange(len(legal))]
        game.apply(seat, action)
        actions.append((seat, action))
    return actions, forfeits


def check_rejection(game: Game, seat: int, legal: tuple[Action, ...], rng: random.Random) -> None:
    everything: list[Action] = [*(Play(c) for c in CARDS), *(ChooseTrump(s) for s in Suit), ChooseTrump(None), Pass()]
    illegal = [a for a in everything if a not in legal]
    other = (seat + 1 + rng.randrange(game.num_seats - 1)) % game.num_seats
    before = [game.view(s) for s in range(game.num_seats)], len(game.events), game.rounds
    for who, action in ((seat, rng.choice(illegal)), (other, legal[0])):
        try:
            game.apply(who, action)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"seat {who} was allowed {action}")
    assert ([game.view(s) for s in range(game.num_seats)], len(game.events), game.rounds) == before


# --- independent invariants ---------------------------------------------------------------------


def trick_winner(trick: Trick, trump: Suit | None) -> int:
    """rules.md R13, written out; a face-down card leads no suit (docs/rules.md W24)."""
    cards = [(p.seat, p.card) for p in trick.plays if p.card is not None]
    led = next(p.card.suit for p in trick.plays if p.card is not None and not p.face_down)
    trumps = [sc for sc in cards if sc[1].suit == trump]
    pool = trumps or [sc for sc in cards if sc[1].suit == led]
    return max(pool, key=lambda sc: sc[1].rank)[0]


def check_round(record: RoundRecord, status: tuple[SeatStatus, ...], rules: Rules) -> None:
    n, h = len(status), record.hand_size
    assert sorted(record.deck) == sorted(CARDS)
    order = recipients(record.dealer, status, h)
    for seat in range(n):
        expected = sorted(record.deck[i] for i, s in enumerate(order) if s == seat)
        assert sorted(record.hands[seat]) == expected, "R6 deal positions"
        assert len(record.hands[seat]) == {IN: h, DOG: 1, OUT: 0}[status[seat]]
    dealt = [c for hand in record.hands for c in hand]
    assert len(dealt) == len(set(dealt)), "a card dealt twice"
    if record.round_number == 1:
        assert record.turn_up == record.deck[len(order) if rules.turn_up == "top" else 51]
        assert record.turn_up not in dealt and record.trump == record.turn_up.suit
    else:
        assert record.turn_up is None and record.trump_chooser is not None
        assert record.no_trump == (record.trump is None)
        assert rules.allow_no_trump or not record.no_trump
    assert len(record.tricks) == h and sum(record.tricks_won) == h
    assert Counter(t.winner for t in record.tricks) == Counter({s: k for s, k in enumerate(record.tricks_won) if k})
    held = {seat: set(record.hands[seat]) for seat in range(n)}
    for number, trick in enumerate(record.tricks, start=1):
        acting = [p.seat for p in trick.plays]
        if number > 1:
            previous = record.tricks[number - 2].winner
            assert previous is not None
            assert acting[0] == next((previous + k) % n for k in range(n) if held[(previous + k) % n]), "R14 lead"
        assert sorted(acting) == sorted(s for s in range(n) if held[s]), "each seat with cards acts once"
        led = next(p.card.suit for p in trick.plays if p.card is not None and not p.face_down)
        for play in trick.plays:
            assert play.face_down == (status[play.seat] is DOG and rules.dog_play == "first_trick"), "W24 face down"
            if play.card is None:
                assert status[play.seat] is DOG and number < h and rules.dog_play == "choose_trick"
                continue
            assert play.card in held[play.seat]
            if play.card.suit != led:
                assert not any(c.suit == led for c in held[play.seat]), "R12 follow suit"
            held[play.seat].discard(play.card)
        assert trick.winner == trick_winner(trick, record.trump)
        if rules.dog_play == "first_trick" and number == 1:
            assert all(p.card is not None for p in trick.plays)
    assert not any(held.values()), "every dealt card is played"


def expected_end(
    record: RoundRecord, status: tuple[SeatStatus, ...], rules: Rules, dog_life_used: bool
) -> tuple[set[int], set[int]]:
    """(knocked out, new dogs) of a round without forfeits (rules.md R16, R17, strict)."""
    r, h, last = record.round_number, record.hand_size, rules.start_hand_size
    need = 1 if rules.required_tricks == "one" or r > last else min(r, h)
    players = [s for s in range(len(status)) if status[s] is not OUT]
    won = record.tricks_won
    normal = [s for s in players if status[s] is IN]
    safe = {s for s in normal if won[s] >= need}
    if not safe and rules.required_tricks == "strict":  # a dog's trick never meets the quota
        safe = {s for s in normal if won[s] == max(won[t] for t in normal)}
    safe |= {s for s in players if status[s] is DOG and won[s] >= 1}  # R17b
    failed = set(players) - safe
    life = (
        not dog_life_used
        and r < last
        and (rules.dog_life == "any_round" or (rules.dog_life == "round1" and r == 1))
    )
    dogs = {s for s in failed if life and status[s] is IN and won[s] == 0}  # no trick at all
    return failed - dogs, dogs


def check_game(game: Game, forfeits: bool = False) -> None:
    rules, n = game.rules, game.num_seats
    outcome = game.outcome
    assert game.over and outcome is not None and game.to_act is None and game.legal_actions() == ()
    assert isinstance(game.events[-1], GameEnded) and sum(isinstance(e, GameEnded) for e in game.events) == 1
    started = [e for e in game.events if isinstance(e, RoundStarted)]
    ended = [e for e in game.events if isinstance(e, RoundEnded)]
    rounds = game.rounds
    assert len(started) == len(ended) == len(rounds)
    assert started[0].dealer == game.first_dealer
    dog_life_used = False
    for index, (start, end, record) in enumerate(zip(started, ended, rounds)):
        status = start.status
        assert (record.round_number, record.dealer, record.hand_size) == (index + 1, start.dealer, start.hand_size)
        check_round(record, status, rules)
        leader = next((record.dealer + k) % n for k in range(1, n + 1) if status[(record.dealer + k) % n] is not OUT)
        if record.round_number > 1 and rules.first_lead == "trump_chooser" and start.trump_chooser is not None:
            leader = start.trump_chooser
        assert record.tricks[0].plays[0].seat == leader, "R11 first lead"
        survivors = [s for s in range(n) if status[s] is not OUT and s not in end.knocked_out]
        if survivors:
            assert set(end.forfeited) <= set(end.knocked_out)
        else:
            assert forfeits and outcome.winner is None and set(end.forfeited) == {s for s in range(n) if status[s] is not OUT}
        if not end.forfeited:
            knocked, dogs = expected_end(record, status, rules, dog_life_used)
            assert (set(end.knocked_out), set(end.dogs)) == (knocked, dogs), f"R17 in round {end.round_number}"
        dog_life_used = dog_life_used or bool(end.dogs)
        if index + 1 < len(started):
            nxt = started[index + 1]
            after = tuple(OUT if s in end.knocked_out or status[s] is OUT else DOG if s in end.dogs else IN for s in range(n))
            assert nxt.status == after
            assert nxt.dealer == next(
                (record.dealer + k) % n for k in range(1, n + 1) if after[(record.dealer + k) % n] is not OUT
            ), "R5 dealer"
            chooser = nxt.trump_chooser
            assert chooser is not None and after[chooser] is not OUT
            tiebreak = record.round_number >= rules.start_hand_size
            if not tiebreak:
                most = max(record.tricks_won[s] for s in range(n) if after[s] is not OUT)
                assert record.tricks_won[chooser] == most, "R9"
                if rules.trump_tiebreak == "dealer_left":
                    assert chooser == next(
                        s for s in ((record.dealer + k) % n for k in range(1, n + 1))
                        if after[s] is not OUT and record.tricks_won[s] == most
                    ), "R10"
    in_at_end = [s for s in range(n) if outcome.knocked_out_round[s] is None]
    if outcome.winner is None:
        assert forfeits and in_at_end == []
    else:
        assert in_at_end == [outcome.winner]
    if not forfeits:
        # strict: a dog taking the last round's only trick leaves every normal player in
        # (a dog never meets the quota), so tiebreak deals follow
        assert outcome.winner is not None
        assert len(rounds) <= rules.start_hand_size or rules.required_tricks == "strict"
    keys = [
        (99, 1) if s == outcome.winner else (outcome.knocked_out_round[s], 0 if outcome.forfeited[s] else 1)
        for s in range(n)
    ]
    assert outcome.placements == tuple(1 + sum(k > key for k in keys) for key in keys), "R21 placements"
    assert game.events[-1] == GameEnded(outcome.winner, outcome.placements)


Setup = tuple[int, Rules, int, "int | None", dict[int, tuple[Card, ...]]]


def check_replay(game: Game, setup: Setup, actions: list[tuple[int, Action]], forfeits: list[tuple[int, int]]) -> None:
    num_seats, rules, seed, first_dealer, decks = setup
    again = replay(num_seats, rules, seed, first_dealer, decks, actions, forfeits=forfeits)
    assert again.events == game.events and again.outcome == game.outcome and again.rounds == game.rounds
    recorded = {r.round_number: r.deck for r in game.rounds}
    from_record = replay(num_seats, rules, seed, game.first_dealer, recorded, actions, forfeits=forfeits)
    assert from_record.events == game.events and from_record.outcome == game.outcome


def test_w21_random_games_over_every_variant() -> None:
    for index in range(len(VARIANTS) * GAMES_PER_VARIANT):
        setup = setup_for(index)
        num_seats, rules, seed, first_dealer, decks = setup
        game = Game(num_seats, rules, seed, first_dealer=first_dealer, decks=decks)
        actions, _ = play_random(game, random.Random(index))
        try:
            check_game(game)
            check_replay(game, setup, actions, [])
        except AssertionError as error:
            where = f"game {index}: {num_seats} seats, {rules.summary()}, first_dealer={first_dealer}"
            raise AssertionError(f"{where}: {error}") from error


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, 10**6), forfeit_rate=st.sampled_from([0.0, 0.005, 0.02, 0.1]))
def test_random_games_with_forfeits(index: int, forfeit_rate: float) -> None:
    setup = setup_for(index)
    num_seats, rules, seed, first_dealer, decks = setup
    game = Game(num_seats, rules, seed, first_dealer=first_dealer, decks=decks)
    actions, forfeits = play_random(game, random.Random(index), forfeit_rate)
    check_game(game, forfeits=bool(forfeits))
    check_replay(game, setup, actions, forfeits)
    assert game.outcome is not None
    for seat, forfeited in enumerate(game.outcome.forfeited):
        assert not forfeited or any(s == seat for _, s in forfeits)
