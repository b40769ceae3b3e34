"""The sample bots play legal moves, and the heuristic bot beats the random one (deterministic:
seeded engine, seeded random bot; the bots are called in-process, without gRPC)."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from referee.botkit import Bot
from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import Action, ChooseTrump, DecisionKind, Pass, Play
from tests.transport.helpers import SAMPLES


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"sample_{name}", SAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play_game(bots: list[Bot], seed: int, rules: Rules) -> int | None:
    game = Game(num_seats=len(bots), rules=rules, seed=seed, game_id=f"s{seed}")
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        action: Action
        if view.decision is DecisionKind.CHOOSE_TRUMP:
            action = ChooseTrump(bots[seat].choose_trump(view))
        else:
            card = bots[seat].play(view)
            action = Pass() if card is None else Play(card)
        assert action in view.legal, (bots[seat].name, action, view.legal)
        game.apply(seat, action)
    assert game.outcome is not None
    return game.outcome.winner


def test_heuristic_beats_random_heads_up_and_at_a_table_of_four() -> None:
    heuristic, random_bot = _load("heuristic_bot").HeuristicBot(), _load("random_bot").RandomBot()
    wins = {"heuristic": 0, "random": 0}
    for seed in range(60):
        for table in ([heuristic, random_bot], [random_bot, heuristic]):
            winner = play_game(table, seed, Rules())
            assert winner is not None
            wins[table[winner].name] += 1
    assert wins["heuristic"] > 1.5 * wins["random"], wins
    four = 0
    for seed in range(60):
        table = [random_bot, random_bot, random_bot, random_bot]
        table[seed % 4] = heuristic
        if play_game(table, seed, Rules(allow_no_trump=True, dog_life="any_round")) == seed % 4:
            four += 1
    assert four > 60 / 4 * 1.5, four  # one in four by chance
