"""The Play stream rests on a gRPC layer below its public API (docs/design.md §4): when a
grpcio release removes or changes it, streams turn off for the run with one line and every
bot is asked by ``Decide``; a league completes with the same games."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from grpc._cython import cygrpc  # type: ignore[attr-defined]

from referee.game.views import DecisionKind
from referee.transport import client as client_module
from referee.transport import stream as stream_module
from referee.transport import streamguard
from referee.transport.client import BotClient, DecisionAsk
from tests.conftest import REPO, assert_asked_over, write_config
from tests.transport.helpers import HELLO_TIMEOUT_S, BotLauncher, hand_view

SAMPLES = REPO / "sample_bots" / "python"
CHANGED = Path(__file__).parent / "changed_grpc.py"
OFF = "Play streams off for this run"


def _league(tmp: Path, name: str) -> Path:
    bots = {"heuristic": "heuristic_bot.py", "random": "random_bot.py", "heuristic-2": "heuristic_bot.py"}
    lines = [
        "[league]", f'name = "{name}"', "seed = 11", "table_size = 3", "deals = 2", "concurrency = 2",
        f'results = "{tmp / (name + ".sqlite")}"',
        "[time]", "move_ms = 5000", "startup_ms = 20000",
    ]  # fmt: skip
    for bot, script in bots.items():
        lines += ["[[bots]]", f'name = "{bot}"', f'command = ["python", "{SAMPLES / script}"]']
    return write_config(tmp / f"{name}.toml", "\n".join(lines) + "\n")


def _games(results: Path) -> list[tuple[object, ...]]:
    """Each stored game as what it came to: seats, actions, placements, faults (no times)."""
    with sqlite3.connect(results) as db:
        records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games ORDER BY fixture")]
    return [
        (r["seats"], [(a["seat"], a["action"]) for a in r["actions"]], r["placements"], [f["kind"] for f in r["faults"]])
        for r in records
    ]


def _run(tmp: Path, name: str, mode: str | None) -> subprocess.CompletedProcess[str]:
    config = _league(tmp, name)
    prefix = [sys.executable, str(CHANGED), mode] if mode else [sys.executable, "-m", "referee"]
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    return subprocess.run([*prefix, "run", str(config), "--no-live"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("mode", ["missing", "signature", "renamed"])
def test_a_league_completes_on_decide_with_the_same_games_when_the_private_layer_changed(short_tmp: Path, mode: str) -> None:
    usual = _run(short_tmp, "usual", None)
    assert usual.returncode == 0, usual.stderr
    assert OFF not in usual.stderr
    changed = _run(short_tmp, mode, mode)
    assert changed.returncode == 0, changed.stderr
    said = [line for line in changed.stderr.splitlines() if OFF in line]
    assert len(said) == 1, changed.stderr  # one line, once
    assert "every bot is asked by Decide" in said[0]
    assert _games(short_tmp / f"{mode}.sqlite") == _games(short_tmp / "usual.sqlite")
    assert_asked_over(short_tmp / "usual", "stream")  # the kit bots offer streams: used while the layer is there
    assert_asked_over(short_tmp / mode, "unary")  # and not once it is changed


def test_a_changed_layer_at_the_first_ask_is_asked_again_by_decide(
    monkeypatch: pytest.MonkeyPatch, bots: BotLauncher, caplog: pytest.LogCaptureFixture
) -> None:
    """The check at Hello passed, but the first ask on a stream raises (a changed operation):
    that decision is answered by Decide, and every later one too."""
    monkeypatch.setattr(streamguard, "_off", None)

    class Changed:
        """The stream module's view of cygrpc in a release whose operation changed."""

        def __getattr__(self, name: str) -> object:
            return getattr(cygrpc, name)

        @staticmethod
        def SendMessageOperation(*args: object) -> None:  # noqa: N802 (cygrpc's name)
            raise TypeError("SendMessageOperation() takes exactly 3 arguments (2 given)")

    bot = bots.start(SAMPLES / "heuristic_bot.py")

    async def main() -> list[object]:
        client = BotClient(bot.address, "kit")
        try:
            await client.hello(HELLO_TIMEOUT_S)
            assert client.plays_streams
            monkeypatch.setattr(stream_module, "cygrpc", Changed())
            first = await client.decide(DecisionAsk(hand_view(DecisionKind.PLAY, game_id="g"), [], 0, 1000, 0, 10.0))
            second = await client.decide(DecisionAsk(hand_view(DecisionKind.PLAY, game_id="g"), [], 1, 1000, 0, 10.0))
            return [first, second, client.plays_streams]
        finally:
            client.close()

    with caplog.at_level(logging.WARNING, logger="referee.transport"):
        first, second, streams = trio.run(main)
    assert first.fault is None and second.fault is None  # type: ignore[attr-defined]
    assert streams is False
    assert streamguard.streams_off() is not None
    assert [record.getMessage() for record in caplog.records].count(streamguard.streams_off()) == 1


def test_stale_deadlines_are_pruned() -> None:
    """Disarmed deadlines do not pile up in the heap while a far one stays armed."""
    deadlines = stream_module._Deadlines()
    far = deadlines.arm(1e12, object())  # type: ignore[arg-type]
    for _ in range(10 * stream_module.PRUNE_AT):
        deadlines.disarm(deadlines.arm(1e11, object()))  # type: ignore[arg-type]
    assert deadlines.pending <= 2 * stream_module.PRUNE_AT + 2
    assert not deadlines.disarm(far)


def test_the_check_passes_on_the_grpcio_in_use() -> None:
    stream_module.self_check()
    assert client_module.streams_ready() or streamguard.streams_off() is not None
