"""A fault never pays (docs/design.md §5), with the engine only: over seeded games, a
strategy that faults scores no more points per game than the same strategy without
faults, whatever kind of fault it makes and wherever it makes it.

Each game is played twice with the same seeds (deal, opponents' and the strategy's own
random choices): once clean, once with faults injected into the strategy's replies; the
two scores are compared pairwise. Points as in the standings (referee/standings/table.py): 1 per
opponent outlasted, 1/2 per opponent placed equal.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest

from referee.game.cards import CARDS, Suit
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.game.views import Action, ChooseTrump, DecisionKind, Play, SeatView
from referee.league.match import Player, play_match
from referee.transport.replies import DecisionAsk, Reply

TIME = TimeControl(move_ms=200, grace_ms=50, bank_ms=600)
SEATS = 4
GAMES = 200  # per test: about 2 ms of engine time per game

Strategy = Callable[[SeatView, random.Random], Action]


def uniform(view: SeatView, rng: random.Random) -> Action:
    return rng.choice(view.legal)


def greedy(view: SeatView, rng: random.Random) -> Action:
    """The highest legal card; as trump the suit held most of (a plain, decent player)."""
    if view.decision is DecisionKind.CHOOSE_TRUMP:
        return ChooseTrump(max(Suit, key=lambda suit: sum(card.suit is suit for card in view.hand)))
    cards = [action for action in view.legal if isinstance(action, Play)]
    return max(cards, key=lambda action: action.card.rank) if cards else rng.choice(view.legal)


STRATEGIES: dict[str, Strategy] = {"uniform": uniform, "greedy": greedy}

# When the faulting variant faults: once, at its first decision of the game; at every
# trump choice (at most max_faults - 1 of them, so it never forfeits for its count: the
# purest test of the fallback moves); at random; or at random below the limit.
Schedule = Callable[[SeatView, random.Random, int], bool]


def at_trump_choices(view: SeatView, rng: random.Random, faults_so_far: int) -> bool:
    return view.decision is DecisionKind.CHOOSE_TRUMP and faults_so_far < FaultPolicy().max_faults - 1


def at_first_decision(view: SeatView, rng: random.Random, faults_so_far: int) -> bool:
    return faults_so_far == 0


def at_random(view: SeatView, rng: random.Random, faults_so_far: int) -> bool:
    return rng.random() < 0.15


def under_the_limit(view: SeatView, rng: random.Random, faults_so_far: int) -> bool:
    return faults_so_far < FaultPolicy().max_faults - 1 and rng.random() < 0.3


SCHEDULES: dict[str, Schedule] = {"first": at_first_decision, "trump": at_trump_choices, "random": at_random, "under-limit": under_the_limit}


def faulty_reply(kind: str, view: SeatView, action: Action, deadline_s: float | None) -> Reply:
    """A reply carrying one fault of ``kind``, as the transport would classify it."""
    late_ms = (deadline_s or 1.0) * 1000 + 1
    not_held = next(Play(card) for card in CARDS if card not in view.hand)
    replies = {
        "timeout": Reply(None, "timeout", "deadline exceeded", b"", "DEADLINE_EXCEEDED: ", late_ms),
        "late": Reply(action, None, "", b"", str(action), late_ms),  # a legal answer, after the deadline
        "late-malformed": Reply(None, "malformed", "no action set", b"", "{}", late_ms - 2),
        "late-illegal": Reply(not_held, None, "", b"", str(not_held), late_ms - 2),
        "malformed": Reply(None, "malformed", "no action set", b"", "{}", 1.0),
        "illegal": Reply(not_held, None, "", b"", str(not_held), 1.0),
        "crash": Reply(None, "crash", "gRPC status UNAVAILABLE", b"", "UNAVAILABLE: ", 1.0),
    }
    return replies[kind]


FAULT_KINDS = ("timeout", "late", "late-malformed", "late-illegal", "malformed", "illegal", "crash")


@dataclass
class Bot:
    """A match Player that answers with ``strategy``; with ``kind`` set it injects that
    fault whenever ``schedule`` says so (it draws the same random numbers either way)."""

    name: str
    strategy: Strategy
    rng: random.Random
    kind: str | None = None
    schedule: Schedule | None = None
    faults: int = 0
    crashed: bool = False
    seen: list[int] = field(default_factory=list)

    def decide(self, ask: DecisionAsk) -> Reply:
        view = ask.view
        self.seen.append(ask.bank_left_ms)
        action = self.strategy(view, self.rng)
        inject = self.schedule(view, self.rng, self.faults) if self.schedule is not None else False
        if self.kind is not None and inject:
            self.faults += 1
            self.crashed = self.kind == "crash"
            return faulty_reply(self.kind, view, action, ask.deadline_s)
        return Reply(action, None, "", b"", str(action), 1.0)

    def exit_detail(self) -> str | None:
        return "exited with code 1" if self.crashed else None


def points(placements: Sequence[int], seat: int) -> float:
    mine = placements[seat]
    return sum(1.0 if mine < other else 0.5 if mine == other else 0.0 for s, other in enumerate(placements) if s != seat)


def play(seed: int, rules: Rules, strategy: Strategy, kind: str | None, schedule: Schedule | None, startup: bool = False) -> float:
    """Points of the seat ``seed % SEATS`` (the strategy under test) in game ``seed``."""
    seat = seed % SEATS
    players: list[Player | None] = [Bot(f"random-{s}", uniform, random.Random(f"{seed}:{s}")) for s in range(SEATS)]
    players[seat] = None if startup else Bot("tested", strategy, random.Random(f"{seed}:tested"), kind, schedule)
    game = Game(SEATS, rules, seed, game_id=f"g{seed}", first_dealer=seed % SEATS)
    play_match(game, players, TIME, FaultPolicy())
    assert game.outcome is not None
    return points(game.outcome.placements, seat)


RULES = (Rules(), Rules(required_tricks="strict", dog_life="any_round"))


def variant(seed: int) -> tuple[Rules, Strategy, Schedule]:
    """Game ``seed``'s rules, strategy and fault schedule: every combination in turn."""
    combos = [(rules, strategy, schedule) for rules in RULES for strategy in STRATEGIES.values() for schedule in SCHEDULES.values()]
    return combos[seed % len(combos)]


def assert_never_pays(clean: list[float], faulty: list[float]) -> None:
    gains = [f - c for c, f in zip(clean, faulty)]
    mean = statistics.fmean(gains)
    noise = 2 * statistics.stdev(gains) / len(gains) ** 0.5 if any(gains) else 0.0
    assert mean <= noise, (
        f"faulting scored {statistics.fmean(faulty):.3f} points per game, the same strategy without faults "
        f"{statistics.fmean(clean):.3f} (gain {mean:+.3f}, noise {noise:.3f})"
    )


@pytest.mark.parametrize("kind", FAULT_KINDS, ids=FAULT_KINDS)
def test_a_fault_never_scores_more_points_per_game(kind: str) -> None:
    """Over every rule set, strategy and schedule in turn (:func:`variant`)."""
    clean, faulty = [], []
    for seed in range(GAMES):
        rules, strategy, schedule = variant(seed)
        clean.append(play(seed, rules, strategy, None, None))
        faulty.append(play(seed, rules, strategy, kind, schedule))
    assert_never_pays(clean, faulty)


def test_the_fallback_moves_alone_never_score_more() -> None:
    """Faults at every trump choice (fewer than max_faults): only the fallback's trump
    differs, so it must be no better than a random or a greedy choice."""
    clean, faulty = [], []
    for seed in range(GAMES):
        rules, strategy = RULES[seed % 2], (uniform, greedy)[seed // 2 % 2]
        clean.append(play(seed, rules, strategy, None, None))
        faulty.append(play(seed, rules, strategy, "malformed", at_trump_choices))
    assert_never_pays(clean, faulty)


def test_a_bot_that_never_starts_never_scores_more() -> None:
    seeds = range(GAMES // 2)
    clean = [play(seed, RULES[seed % 2], uniform, None, None) for seed in seeds]
    absent = [play(seed, RULES[seed % 2], uniform, None, None, startup=True) for seed in seeds]
    assert_never_pays(clean, absent)
    assert max(absent) == 0.0, "an absent seat forfeits at once: it outlasts nobody"


def test_a_crash_forfeits_the_game_at_once() -> None:
    """The crashing seat is knocked out at the end of the round of its crash, below every
    seat knocked out by play in that round, whatever its fallbacks win."""
    for seed in range(40):
        seat = seed % SEATS
        players: list[Player | None] = [Bot(f"random-{s}", uniform, random.Random(f"{seed}:{s}")) for s in range(SEATS)]
        players[seat] = Bot("tested", uniform, random.Random(seed), "crash", lambda view, rng, n: True)
        game = Game(SEATS, Rules(), seed, game_id=f"g{seed}", first_dealer=0)
        result = play_match(game, players, TIME, FaultPolicy(max_faults=10))
        assert game.outcome is not None
        assert result.forfeits[0] == (result.faults[0].decision, seat)
        assert game.outcome.forfeited[seat] and game.outcome.knocked_out_round[seat] == 1
        assert game.outcome.placements[seat] == max(game.outcome.placements)


def test_a_late_answer_is_a_timeout_whatever_it_holds_and_spends_the_bank() -> None:
    """move 200 ms, grace 50 ms, bank 600 ms: an empty Action after 450 ms spends 200 ms of
    the bank (the next request says 400); once the bank cannot pay, it is a timeout."""
    rng = random.Random(3)

    @dataclass
    class Slow(Bot):
        def decide(self, ask: DecisionAsk) -> Reply:
            self.seen.append(ask.bank_left_ms)
            return Reply(None, "malformed", "no action set", b"", "{}", 450.0)

    slow = Slow("slow", uniform, rng)
    players: list[Player | None] = [slow, Bot("random", uniform, random.Random(4))]
    game = Game(2, Rules(), 1, game_id="late", first_dealer=1)
    result = play_match(game, players, TIME, FaultPolicy(max_faults=10))
    kinds = [fault.kind for fault in result.faults]
    assert slow.seen[:4] == [600, 400, 200, 0]
    assert kinds[:4] == ["malformed", "malformed", "malformed", "timeout"]
    assert "also malformed" in result.faults[3].detail
