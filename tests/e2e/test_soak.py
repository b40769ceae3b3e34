"""B15's short version (``bench/b15_soak.py``): a movement league of 30 bot-kit bots under
bubblewrap, a third of them misbehaving at random but seeded (crash, hang, garbage, memory
to the limit, processes to the limit, output floods, slow starts, exits between games),
played once straight and once killed with ``kill -9`` mid-run and resumed. Nothing is lost
or stored twice, every record and the standings (fault counts included) equal the straight
run's, and no bot process outlives either referee."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.sandbox.conftest import bwrap_ok, needs_bwrap  # noqa: F401 (fixtures)

sys.path.insert(0, str(REPO / "bench"))
import b15_soak  # noqa: E402

GAMES = 120  # 2 rounds of the movement: a few minutes
MISBEHAVE = 0.02  # 4 x the night's share: every kind of fault in so few games
pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(1800)]


@pytest.fixture
def soak_tmp(short_tmp: Path) -> Iterator[Path]:
    short_tmp.chmod(0o755)  # the sandbox's uids read the bots staged there
    yield short_tmp


def test_a_soak_killed_and_resumed_equals_the_straight_run(soak_tmp: Path, needs_bwrap: None) -> None:
    outcome = b15_soak.soak(soak_tmp, GAMES, seed=15, mode="bwrap", stops=[(0.4, int(signal.SIGKILL))], misbehave=MISBEHAVE)
    night = outcome.night
    output = "\n".join(segment.output for segment in night.segments)
    assert outcome.games == GAMES
    assert [segment.signal for segment in night.segments] == ["KILL", ""], output
    assert 0 < night.segments[0].at_games < GAMES, "killed mid-run"
    assert outcome.lost == [] and outcome.extra == [], "no game lost"
    assert night.replaced == 0, "no game stored twice"
    assert outcome.differing == [], "each game as in the straight run"
    assert outcome.standings_equal, "the standings of the straight run, fault counts included"
    assert {"crash", "timeout", "illegal", "malformed"} <= set(outcome.faults), outcome.faults  # the bots did misbehave
    assert [segment.left for segment in [*outcome.straight.segments, *night.segments]] == [0, 0, 0], "no bot process left"
