"""Issue 41: the class's groups (pairwise tests, the false-discovery rate over all pairs,
Piepho's letters) and each student's own line (a marginal claim)."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.league_data.league_records import game_record

from referee.game.records import GameRecord
from referee.standings.groups import benjamini_hochberg, benjamini_yekutieli, class_groups, letter_display
from referee.standings.ownline import own_line
from referee.standings.strength import Unit, fit_strengths
from referee.standings.table import compute_standings


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), max_size=60), st.sampled_from([0.01, 0.05, 0.2]))
def test_the_step_up_procedures_agree_with_scipy(p_values: list[float], rate: float) -> None:
    """Ours (scipy.stats is not imported by the standings: it costs half a second) against
    scipy's adjusted p-values: a p-value is rejected exactly when its adjusted one is <= rate."""
    from scipy.stats import false_discovery_control

    if not p_values:
        assert benjamini_hochberg(p_values, rate) == []
        return
    for ours, method in ((benjamini_hochberg, "bh"), (benjamini_yekutieli, "by")):
        adjusted = false_discovery_control(np.array(p_values), method=method)
        expected = [bool(value <= rate * (1 + 1e-12)) for value in adjusted]
        assert ours(p_values, rate) == expected, method


@st.composite
def separations(draw: st.DrawFn) -> tuple[list[int], set[tuple[int, int]]]:
    bots = draw(st.integers(0, 9))
    pairs = [(a, b) for a in range(bots) for b in range(a + 1, bots)]
    apart = {pair for pair in pairs if draw(st.booleans())}
    return list(range(bots)), apart


@settings(max_examples=300, deadline=None)
@given(separations())
def test_letters_are_shared_exactly_by_the_pairs_not_told_apart(case: tuple[list[int], set[tuple[int, int]]]) -> None:
    order, apart = case
    letters = letter_display(order, apart)
    assert letters is not None
    for a in order:
        assert letters[a], "every bot has a letter"
        assert letters[a] == "".join(sorted(letters[a], key="abcdefghijklmnopqrstuvwxyz".index))
        for b in order:
            if a < b:
                share = bool(set(letters[a]) & set(letters[b]))
                assert share == ((a, b) not in apart), (a, b, letters)
    if order:
        assert letters[order[0]][0] == "a", "the best bot's first letter is a"


def tiered_units(seed: int, tiers: list[float], deals: int) -> list[Unit]:
    """Deals at tables of 4 drawn from bots b00.. whose skill is their tier's; placements by
    skill plus noise, each deal in every rotation (one unit)."""
    rng = random.Random(seed)
    names = [f"b{i:02d}" for i in range(len(tiers))]
    units = []
    for _ in range(deals):
        table = rng.sample(names, 4)
        scores = {name: 0.0 for name in table}
        for _rotation in range(4):
            luck = {name: tiers[names.index(name)] + rng.gauss(0, 1) for name in table}
            for name in table:
                scores[name] += sum(1.0 if luck[name] > luck[other] else 0.0 for other in table if other != name)
        units.append(Unit(tuple(table), {name: (points, 4) for name, points in scores.items()}))
    return units


def test_groups_follow_the_tiers_and_never_the_wrong_way_round() -> None:
    tiers = [2.0] * 6 + [1.0] * 6 + [0.0] * 6
    fit = fit_strengths(tiered_units(7, tiers, 600))
    groups = class_groups(fit)
    tier = {f"b{i:02d}": value for i, value in enumerate(tiers)}
    assert groups.apart, "tiers this far apart are told apart"
    assert all(tier[a] > tier[b] for a, b in groups.apart), "no pair told apart the wrong way round, nor twins"
    top = [groups.letters[f"b{i:02d}"] for i in range(6)]
    bottom = [groups.letters[f"b{i:02d}"] for i in range(12, 18)]
    assert all(not set(a) & set(b) for a in top for b in bottom), "the top tier shares no letter with the bottom one"
    assert all(letters.startswith("a") for letters in top)


def test_identical_bots_are_one_group() -> None:
    fit = fit_strengths(tiered_units(11, [1.0] * 12, 300))
    groups = class_groups(fit)
    assert groups.apart == () and set(groups.letters.values()) == {"a"}


def test_too_few_units_means_no_letters_and_no_claims() -> None:
    records = [game_record(f"g{i}", ["a", "b"], [1, 2], fixture=i) for i in range(3)]
    standings = compute_standings(records)
    assert [row.group for row in standings.rows] == ["", ""] and [row.group_text for row in standings.rows] == ["—", "—"]
    line = standings.own_line("a")
    assert line is not None and not line.tested and line.text().startswith("told apart from no bot yet")


def test_a_students_own_line_names_every_other_bot_once() -> None:
    tiers = [2.0] * 4 + [1.0] * 4 + [0.0] * 4
    fit = fit_strengths(tiered_units(5, tiers, 400))
    for bot in fit.bots:
        line = own_line(fit, bot)
        others = set(fit.bots) - {bot}
        assert set(line.above) | set(line.below) | set(line.not_apart) == others
        assert len(line.above) + len(line.below) + len(line.not_apart) == len(others)
    top = own_line(fit, "b00")
    assert top.below == () and set(top.above) >= {f"b{i:02d}" for i in range(8, 12)}
    assert top.text() == f"told apart from {len(top.above)} bots: above {len(top.above)}, below 0; not told apart from {len(top.not_apart)}"
    assert top.places == (1, 1 + len(top.not_apart))


def test_the_own_line_is_a_marginal_claim_wider_than_the_simultaneous_one() -> None:
    """A bot's own line tests only its own pairs together, so it tells apart at least the
    bots the simultaneous rank sets do (csranks: marginal sets are no wider)."""
    tiers = [1.5, 1.2, 0.9, 0.6, 0.3, 0.0] * 3
    fit = fit_strengths(tiered_units(3, tiers, 300))
    standings_sets = {}
    from referee.standings.uncertainty import rank_sets

    for bot, (best, worst) in zip(fit.bots, rank_sets(fit), strict=True):
        standings_sets[bot] = (best, worst)
    for bot in fit.bots:
        low, high = own_line(fit, bot).places
        best, worst = standings_sets[bot]
        assert best <= low and high <= worst, (bot, (low, high), (best, worst))


def test_standings_carry_the_groups_the_places_and_the_claims() -> None:
    names = ["ann", "bob", "cy", "dee"]
    records: list[GameRecord] = []
    for deal in range(16):
        for rotation in range(4):
            seats = names[rotation:] + names[:rotation]
            order = names if deal % 4 else ["bob", "ann", "dee", "cy"]  # ann ~ bob, cy ~ dee, the pairs far apart
            places = [1 + order.index(bot) for bot in seats]
            records.append(dataclasses.replace(game_record(f"d{deal}-r{rotation}", seats, places, fixture=deal * 4 + rotation), seed=deal))
    standings = compute_standings(records, bots=[*names, "eve"])
    rows = {row.bot: row for row in standings.rows}
    assert rows["ann"].group == rows["bob"].group == "a" and rows["cy"].group == rows["dee"].group == "b"
    assert [row.place_text for row in standings.rows] == ["1", "2", "3", "4", ""]
    assert rows["eve"].rank is None and rows["eve"].group_text == "" and standings.own_line("eve") is None
    assert standings.groups.told_apart("ann", "dee") and not standings.groups.told_apart("ann", "bob")
    line = standings.own_line("cy")
    assert line is not None and line.below == ("ann", "bob") and set(line.above + line.not_apart) == {"dee"}
    assert set(standings.to_json()["claims"]) == {"place", "groups", "groups_method", "rank_set", "own_line"}
    with pytest.raises(KeyError):
        standings.own_line("nobody")
