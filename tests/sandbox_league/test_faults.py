"""Rows 13, 14 and 16 of sandbox.md "Misbehaving bots" in a league under bwrap: malformed
replies, illegal cards, a clean exit mid-game. The fault policy itself is tested in
tests/faults; here: the fault kind and detail, whether the bot's process was kept or
restarted, the league intact, and no process of the bot left."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox_league.helpers import (
    BAD,
    E2E_BOTS,
    GAMES,
    ROTATIONS,
    Staged,
    assert_league_intact,
    assert_no_process_left,
    assert_sandboxed,
    faults_of,
    mine,
    run_in_process,
    write_league,
)

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(120)]


def test_row13_malformed_replies_are_malformed_faults_with_fallbacks_and_no_kill(short_tmp: Path, staged: Staged) -> None:
    league = write_league(short_tmp, [staged("malformed_bot.py")], staged, deals=2)
    records, _ = run_in_process(league)
    assert_league_intact(records, 2 * GAMES)
    assert_sandboxed(league)
    for record in records:
        decisions = mine(record)
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["malformed"] * 3, faults
        assert [fault.decision for fault in faults] == [index for index, _ in decisions[2:5]]
        no_action, not_an_action, status = (fault.detail for fault in faults)
        assert "reply has no action set" in no_action
        assert "gRPC status INTERNAL" in not_an_action and "deserializ" in not_an_action, not_an_action
        assert status == "gRPC status INVALID_ARGUMENT: malformed: refusing on purpose"
        assert all(action.fault == "malformed" for _, action in decisions[2:5]), "a fallback for each"
        assert (decisions[4][0], record.seats.index(BAD)) in record.forfeits, "league preset: the 3rd fault forfeits"
    assert len(league.logs()) == ROTATIONS, "a malformed reply kills nothing: a process per rotation served every deal"
    assert_no_process_left(staged.dir)


def test_row14_an_illegal_card_is_an_illegal_fault_with_a_fallback_and_no_kill(short_tmp: Path, staged: Staged) -> None:
    """tests/e2e/bots/cheat_bot.py answers a card it does not hold, at once, every time."""
    league = write_league(short_tmp, [staged(E2E_BOTS / "cheat_bot.py")], staged, deals=2)
    records, _ = run_in_process(league)
    assert_league_intact(records, 2 * GAMES)
    assert_sandboxed(league)
    for record in records:
        faults = faults_of(record)
        assert faults and {fault.kind for fault in faults} == {"illegal"}, faults
        for fault in faults:
            assert fault.decision is not None and "is not in your hand; legal:" in fault.detail, fault.detail
            action = record.actions[fault.decision]
            assert action.fault == "illegal" and action.action != fault.answer, "the fallback is played, not its card"
            assert action.ms is not None, "the bot answered (it was not killed)"
    assert len(league.logs()) == ROTATIONS, "an illegal card kills nothing: a process per rotation served every deal"
    assert_no_process_left(staged.dir)


def test_row16_a_clean_exit_mid_game_is_a_crash_and_a_restart_before_the_next_game(short_tmp: Path, staged: Staged) -> None:
    """tests/e2e/bots/quitter_bot.py exits with code 0 on its 5th decision."""
    league = write_league(short_tmp, [staged(E2E_BOTS / "quitter_bot.py")], staged, deals=2)
    records, _ = run_in_process(league)
    assert_league_intact(records, 2 * GAMES)
    assert_sandboxed(league)
    for record in records:
        decisions = mine(record)
        faults = faults_of(record)
        assert [fault.kind for fault in faults] == ["crash"], faults
        assert faults[0].decision == decisions[4][0]
        assert "exited with code 0" in faults[0].detail, faults[0].detail
        assert all(action.ms is not None for _, action in decisions[:4]), "a live process answered first"
        assert all(action.ms is None for _, action in decisions[5:]), "the referee plays its seat for the rest of the game"
    assert len(league.logs()) == 2 * GAMES, "restarted before its next game (else one process per rotation)"
    assert_no_process_left(staged.dir)
