"""build_seat_view (the engine's cheap SeatView) is an ordinary SeatView in every way."""

from __future__ import annotations

import dataclasses
import inspect
import random

import pytest

from referee.game import Game
from referee.rules import Rules
from referee.views import SeatView, build_seat_view


def test_the_builder_takes_every_field_in_order() -> None:
    names = [field.name for field in dataclasses.fields(SeatView)]
    assert list(inspect.signature(build_seat_view).parameters) == names


def views_of_random_games(count: int) -> list[SeatView]:
    views = []
    for seed in range(count):
        rules = Rules(allow_no_trump=seed % 2 == 0, dog_life=("round1", "any_round", "off")[seed % 3])
        game = Game(2 + seed % 6, rules, seed, game_id=f"g{seed}")
        choose = random.Random(seed).choice
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            views += [view, game.view((seat + 1) % game.num_seats)]
            game.apply(seat, choose(view.legal))
    return views


@pytest.mark.parametrize("view", views_of_random_games(12)[::37])
def test_a_built_view_equals_the_dataclass_built_one(view: SeatView) -> None:
    plain = SeatView(**{field.name: getattr(view, field.name) for field in dataclasses.fields(SeatView)})
    assert type(view) is SeatView
    assert view == plain and hash(view) == hash(plain) and repr(view) == repr(plain)
    assert dataclasses.replace(view) == plain and dataclasses.asdict(view) == dataclasses.asdict(plain)


def test_a_built_view_is_frozen() -> None:
    view = Game(4, Rules(), 1).view(0)
    plain = dataclasses.replace(view)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.seat = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del view.hand
    for one in (view, plain):  # a new attribute fails alike (TypeError on Python 3.11)
        with pytest.raises(Exception) as raised:
            one.extra = 1  # type: ignore[attr-defined]
        assert raised.type in (AttributeError, TypeError)
    assert view == plain


def test_views_share_nothing_mutable_with_the_game() -> None:
    game = Game(4, Rules(), 7)
    seat = game.to_act
    assert seat is not None
    before = game.view(seat)
    snapshot = dataclasses.astuple(before)
    game.apply(seat, before.legal[0])
    assert dataclasses.astuple(before) == snapshot  # applying an action left the old view alone
