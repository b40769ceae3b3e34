"""The examples in the docstrings of the pure core (``referee.game``, ``referee.standings``)
run and show what they say: a broken example fails the suite. Every module of the two
packages is run (imported by name, as ``doctest.testmod`` would), with doctest's default
options; the functions a reader calls first must keep an example."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import referee.game
import referee.standings

PACKAGES = (referee.game, referee.standings)
MODULES = sorted(
    info.name for package in PACKAGES for info in pkgutil.iter_modules(package.__path__, package.__name__ + ".")
)

# The public API a reader meets first: each of these has an example in its own docstring.
SHOWN = [
    "referee.game.cards.parse_card",
    "referee.game.cards.parse_cards",
    "referee.game.cards.parse_suit",
    "referee.game.views.parse_action",
    "referee.game.views.format_action",
    "referee.game.views.fallback_action",
    "referee.game.rules.Rules.check_players",
    "referee.game.rules.Rules.summary",
    "referee.game.engine",
    "referee.game.engine.Game.legal_actions",
    "referee.game.engine.Game.apply",
    "referee.game.engine.replay",
    "referee.game.dealing.deal",
    "referee.game.round_end.resolve_round",
    "referee.game.round_end.placements",
    "referee.game.timecontrol.SeatClock.settle",
    "referee.game.timecontrol.SeatClock.judge",
    "referee.game.gamelog.build_record",
    "referee.standings.table.compute_standings",
    "referee.standings.strength.fit_strengths",
    "referee.standings.uncertainty.intervals",
    "referee.standings.uncertainty.rank_sets",
    "referee.standings.uncertainty.sprt",
    "referee.standings.uncertainty.equivalent",
    "referee.standings.uncertainty.marginal_separations",
    "referee.standings.groups.class_groups",
    "referee.standings.groups.letter_display",
    "referee.standings.ownline.own_line",
    "referee.standings.verdicts.pair_verdicts",
    "referee.standings.ratings.rate_games",
    "referee.standings.running.RunningStandings",
]


def _examples(module: ModuleType) -> list[doctest.DocTest]:
    return [test for test in doctest.DocTestFinder().find(module) if test.examples]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_hold(name: str) -> None:
    runner = doctest.DocTestRunner()
    report: list[str] = []
    for test in _examples(importlib.import_module(name)):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


@pytest.mark.parametrize("name", SHOWN)
def test_a_public_function_shows_an_example(name: str) -> None:
    target = pkgutil.resolve_name(name)
    docstring = getattr(target, "__doc__", None) or ""
    assert doctest.DocTestParser().get_examples(docstring), f"{name} has no example in its docstring"
