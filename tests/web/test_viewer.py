"""The game viewer's steps from a real engine game, the address parser, slugs and the ETA."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.errors import ConfigError
from referee.game.engine import Game
from referee.game.gamelog import build_record
from referee.game.records import GameRecord
from referee.game.rules import Rules
from referee.web.data import estimate, slug
from referee.web.serve import parse_address
from referee.web.viewer import game_steps, visible_hands


def played_record(seats: int = 4, seed: int = 3) -> GameRecord:
    game = Game(seats, Rules(), seed, game_id="g1")
    while not game.over:
        assert game.to_act is not None
        game.apply(game.to_act, game.legal_actions()[0])
    return build_record(
        game, league="t", fixture=0, table=[f"b{i}" for i in range(seats)], deal=0, rotation=0,
        seats=[f"b{i}" for i in range(seats)], seed=seed, actions=[], faults=[],
    )  # fmt: skip


@pytest.mark.parametrize("seats,seed", [(2, 1), (3, 2), (4, 3), (5, 9)])
def test_steps_play_every_dealt_card_once_and_end_with_the_game(seats: int, seed: int) -> None:
    record = played_record(seats, seed)
    steps = game_steps(record)
    assert steps[-1].final and not any(step.final for step in steps[:-1])
    assert [step.number for step in steps] == list(range(len(steps)))
    deals = [step for step in steps if step.kind == "deal"]
    assert len(deals) == len(record.rounds)
    for summary, deal in zip(record.rounds, deals):
        assert deal.hands == tuple(tuple(hand) for hand in summary["hands"])
        tricks = [s for s in steps if s.kind == "trick" and s.round == summary["round"]]
        assert len(tricks) == len(summary["tricks"])
        played = Counter(play.card for step in tricks for play in step.plays if play.card)
        assert played == Counter(card for hand in summary["hands"] for card in hand)
        assert all(hand == () for hand in tricks[-1].hands), "every card is played by the round's end"
        assert list(tricks[-1].tricks_won) == summary["tricks_won"]
    assert steps[-1].notes[0].startswith("1. ")


def test_a_seat_sees_only_its_own_hand_until_the_game_is_over() -> None:
    steps = game_steps(played_record(4, 5))
    for step in steps[:-1]:
        shown = visible_hands(step, 2)
        assert shown[2] == step.hands[2]
        assert all(shown[other] == len(step.hands[other]) for other in (0, 1, 3))
    assert visible_hands(steps[-1], 2) == steps[-1].hands
    assert all(visible_hands(step, None) == step.hands for step in steps)


@pytest.mark.parametrize(
    "text,expected",
    [("8000", ("127.0.0.1", 8000)), ("0.0.0.0:9000", ("0.0.0.0", 9000)), (":81", ("127.0.0.1", 81)),
     ("[::1]:8080", ("::1", 8080)), ("localhost", ("localhost", 8000)), ("0", ("127.0.0.1", 0))],
)  # fmt: skip
def test_addresses_default_to_this_machine_only(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["host:port", "host:", "99999", "[::1]:x"])
def test_a_bad_address_is_one_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="PORT"):
        parse_address(text)


def test_slugs_are_safe_file_names_and_never_collide() -> None:
    assert slug("heuristic-2") == "heuristic-2"
    names = ["a/b", "a_b", "a b", "ünï", "../x", "<script>"]
    slugs = [slug(name) for name in names]
    assert len(set(slugs)) == len(names)
    assert all(s.isascii() and "/" not in s and not s.startswith(".") for s in slugs)


def test_eta_comes_from_the_recent_rate() -> None:
    times = [100.0 + 2 * i for i in range(10)]  # one game every 2 s
    assert estimate(10, 20, times, now=118.0) == pytest.approx(20.0)
    assert estimate(10, 20, times, now=121.0) == pytest.approx(17.0)
    assert estimate(20, 20, times, now=500.0) == 0.0
    assert estimate(1, 20, times[:1], now=101.0) is None
    assert estimate(10, None, times, now=118.0) is None
