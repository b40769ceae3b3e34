"""The game viewer's steps and fault marks from a real engine game, the address parser, slugs."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.errors import ConfigError
from referee.game.engine import Game
from referee.game.gamelog import build_record
from referee.game.records import ActionRecord, FaultRecord, GameRecord
from referee.game.rules import Rules
from referee.game.views import DecisionKind, format_action
from referee.web.data import slug
from referee.web.serve import parse_address
from referee.web.viewer import fault_marks, game_steps, viewer_record, visible_hands


def played_record(seats: int = 4, seed: int = 3, *, faults: dict[int, str] | None = None, referee: frozenset[int] = frozenset()) -> GameRecord:
    """A game played by the engine with every decision recorded; ``faults`` maps a decision
    number to a fault kind (the referee played the fallback), ``referee`` lists decisions
    the referee played for a seat without a fault (ms None)."""
    faults = faults or {}
    game = Game(seats, Rules(), seed, game_id="g1")
    actions, fault_records = [], []
    while not game.over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        action = game.legal_actions()[0]
        number = len(actions)
        kind = faults.get(number)
        ms = None if number in referee else 2.0
        actions.append(ActionRecord(seat, view.decision.value if view.decision else "", format_action(action), ms, kind))  # type: ignore[arg-type]
        if kind:
            fault_records.append(FaultRecord(kind, seat, f"b{seat}", number, "deadline of 1100 ms exceeded", "", "DEADLINE_EXCEEDED: x", 1100.0))  # type: ignore[arg-type]
        game.apply(seat, action)
    return build_record(
        game, league="t", fixture=0, table=[f"b{i}" for i in range(seats)], deal=0, rotation=0,
        seats=[f"b{i}" for i in range(seats)], seed=seed, actions=actions, faults=fault_records,
    )  # fmt: skip


@pytest.mark.parametrize("seats,seed", [(2, 1), (3, 2), (4, 3), (5, 9)])
def test_steps_play_every_dealt_card_once_and_end_with_the_game(seats: int, seed: int) -> None:
    record = played_record(seats, seed)
    steps = game_steps(record)
    assert steps[-1].final and not any(step.final for step in steps[:-1])
    assert [step.number for step in steps] == list(range(1, len(steps) + 1)), "numbered from 1, as the page shows them"
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


def test_every_card_the_referee_played_is_marked_at_its_own_step() -> None:
    """The decision numbers of the record's actions map onto the steps: each trick's plays
    are the actions of those decisions, and a fault is shown where its card was played."""
    plain = played_record(4, 7)
    plays = [(a.seat, a.action) for a in plain.actions if a.kind == DecisionKind.PLAY.value]
    shown = [(play.seat, play.card or "pass") for step in game_steps(plain) for play in step.plays]
    assert shown == plays
    trump_choices = [n for n, a in enumerate(plain.actions) if a.kind == DecisionKind.CHOOSE_TRUMP.value]
    last_play = max(n for n, a in enumerate(plain.actions) if a.kind == DecisionKind.PLAY.value)
    chosen = {5: "timeout", last_play: "illegal"} | ({trump_choices[0]: "malformed"} if trump_choices else {})
    record = played_record(4, 7, faults=chosen, referee=frozenset({9}))
    steps = game_steps(record)
    marks = fault_marks(record, steps)
    assert [mark.decision for mark in marks] == sorted(chosen)
    for mark in marks:
        assert mark.played == record.actions[mark.decision].action
        step = steps[mark.step - 1]
        assert mark.index in step.faults
        if record.actions[mark.decision].kind == DecisionKind.PLAY.value:
            assert [play for play in step.plays if play.fault == mark.index] != [], f"decision {mark.decision} marked in its trick"
        else:
            assert step.kind == "deal" and any("the referee chose for it after a fault" in note for note in step.notes)
    marked = [play for step in steps for play in step.plays if play.fault is not None]
    assert len(marked) == sum(1 for kind in chosen.values() if kind) - (1 if trump_choices else 0)
    assert sum(play.by_referee for step in steps for play in step.plays) == 1, "decision 9: a seat no bot played"


def test_the_viewer_record_links_each_fault_to_its_bot_page() -> None:
    record = played_record(3, 2, faults={4: "timeout"})
    data = viewer_record(record, bot_pages=["../bots/b0.html", "../bots/b1.html", "../bots/b2.html"], fault_ids=["fault-g1-d4"])
    (fault,) = data["faults"]
    assert fault["href"] == f"../bots/b{fault['seat']}.html#fault-g1-d4" and fault["kind"] == "timeout"
    assert data["steps"][0]["number"] == 1 and data["steps"][-1]["kind"] == "over"
    assert fault["step"] in {step["number"] for step in data["steps"] if 0 in step["faults"]}
