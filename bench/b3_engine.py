"""B3 engine: the pure engine playing random games through the interface the referee uses
(``game.to_act``, ``game.view(seat)``, ``view.legal``, ``game.apply``), in decisions per
second, divided by OpenSpiel's ``oh_hell`` (4 players, 7 tricks) through its Python API
in the same process, interleaved.

Both sides pay for whole games: set-up and dealing included. Our games are 4-player
Knockout Whist with the default rules; OpenSpiel's random rollout picks uniformly among
``state.legal_actions()`` at every node (its chance nodes, the deal, are uniform, so this
is its cheapest faithful rollout) and counts only player decisions (bids and plays).

Beside it, the bot kit's look-ahead (``referee.botkit.search``) as the sample search bot
spends it: from the decisions of 4-player heuristic games that have a choice, one deal
drawn (``determinize``) and, for every legal action, a fresh game made from it
(``Deal.state``), the action applied and played on with the heuristic for every seat
(``playout``) to the end of the next round, as the search bot does, or of the game, and
scored (``points``). A playout is one action on one deal, everything it takes included.
Its rate is per CPU second of the process (one core), so other load on a shared machine
slows it less than the wall-clock figures above.
"""

from __future__ import annotations

import random
import time

import common
from common import Figure

OURS_GAMES = 600
SPIEL_GAMES = 1500


def ours(games: int, first_seed: int) -> tuple[float, int]:
    """(decisions/s, decisions) of ``games`` random 4-player games."""
    from referee.game.engine import Game
    from referee.game.rules import Rules

    rules = Rules()
    choose = random.Random(first_seed).choice
    decisions = 0
    began = time.perf_counter()
    for seed in range(first_seed, first_seed + games):
        game = Game(4, rules, seed, game_id=f"g{seed}")
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            game.apply(seat, choose(view.legal))
            decisions += 1
    return decisions / (time.perf_counter() - began), decisions


def decision_views(games: int) -> list[object]:
    """The views of every decision with a choice in ``games`` 4-player heuristic games."""
    from referee.botkit.search import heuristic
    from referee.game.engine import Game
    from referee.game.rules import Rules

    views = []
    for seed in range(games):
        game = Game(4, Rules(), 10**7 + seed, game_id=f"k{seed}")
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if len(view.legal) > 1:
                views.append(view)
            game.apply(seat, heuristic(view))
    return views


def kit(views: list[object], deals: int, to_end: bool, seed: int) -> float:
    """Playouts per CPU second (one core: the process's own CPU time, so other load on the
    machine does not count) of ``deals`` deals at each view: to the end of the next round
    (the search bot's), or with ``to_end`` of the game."""
    from referee.botkit.search import determinize, heuristic, playout, points

    rng = random.Random(seed)
    playouts = 0
    began = time.process_time()
    for view in views:
        for _ in range(deals):
            deal = determinize(view, rng)  # type: ignore[arg-type]
            for action in view.legal:  # type: ignore[attr-defined]
                state = deal.state()
                state.apply(view.seat, action)  # type: ignore[attr-defined]
                if to_end:
                    playout(state, heuristic)
                else:
                    playout(state, heuristic, round_only=True)  # this round
                    playout(state, heuristic, round_only=True)  # and the next
                points(state, view.seat)  # type: ignore[attr-defined]
                playouts += 1
    return playouts / (time.process_time() - began)


def openspiel(game: object, games: int, seed: int) -> tuple[float, int]:
    """(player decisions/s, player decisions) of ``games`` random games of ``game``."""
    choose = random.Random(seed).choice
    new_state = game.new_initial_state  # type: ignore[attr-defined]
    decisions = 0
    began = time.perf_counter()
    for _ in range(games):
        state = new_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                decisions += 1
            state.apply_action(choose(state.legal_actions()))
    return decisions / (time.perf_counter() - began), decisions


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    ours_games = 40 if args.quick else OURS_GAMES
    spiel_games = 100 if args.quick else SPIEL_GAMES
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    spiel_game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 7}) if pyspiel else None
    ours_rate: list[float] = []
    spiel_rate: list[float] = []
    ours_per_game: list[float] = []
    spiel_per_game: list[float] = []
    views = decision_views(2 if args.quick else 6)
    kit_deals = 1 if args.quick else 3
    round_rate: list[float] = []
    game_rate: list[float] = []
    ours(10, 10**6)
    kit(views[:5], 1, False, 0)
    if spiel_game is not None:
        openspiel(spiel_game, 10, 10**6)
    for rep in range(args.reps):
        rate, decisions = ours(ours_games, rep * ours_games)
        ours_rate.append(rate)
        ours_per_game.append(decisions / ours_games)
        if spiel_game is not None:
            rate, decisions = openspiel(spiel_game, spiel_games, rep)
            spiel_rate.append(rate)
            spiel_per_game.append(decisions / spiel_games)
        round_rate.append(kit(views, kit_deals, False, rep))
        game_rate.append(kit(views, kit_deals, True, rep))
    figures = [
        Figure("ours_rate", "engine + random policy (view, legal, apply)", "decisions/s", ours_rate),
        Figure("ours_us", "engine, per decision", "µs", [1e6 / r for r in ours_rate]),
        Figure("ours_per_game", "engine, decisions per game", "", ours_per_game),
        Figure("kit_round", f"bot kit look-ahead, one core: playouts to the next round's end, heuristic for all ({len(views)} decisions)", "playouts/CPU s", round_rate),
        Figure("kit_game", "bot kit look-ahead, one core: playouts to the game's end", "playouts/CPU s", game_rate),
        Figure("kit_move", "search bot's playouts in its 500 ms of a 1000 ms move (one core)", "playouts", [0.5 * r for r in round_rate]),
    ]
    if spiel_game is not None:
        figures += [
            Figure("spiel_rate", "OpenSpiel oh_hell (4 players, 7 tricks), Python API", "decisions/s", spiel_rate),
            Figure("spiel_us", "OpenSpiel, per decision", "µs", [1e6 / r for r in spiel_rate]),
            Figure("spiel_per_game", "OpenSpiel, decisions per game", "", spiel_per_game),
            Figure("ratio", "engine ÷ OpenSpiel decisions/s", "×", common.ratio_values(ours_rate, spiel_rate)),
        ]
    common.write_json(
        args.json, "B3 engine", figures,
        openspiel=(pyspiel.__version__ if pyspiel and hasattr(pyspiel, "__version__") else ("installed" if pyspiel else "not installed")),
    )


if __name__ == "__main__":
    main()
