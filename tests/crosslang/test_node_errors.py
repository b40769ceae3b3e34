"""A Node bot's exceptions are never silent (issue 37): the Node sample whose strategy throws
logs the stack to its log, answers that decision with an error status (fault ``malformed``)
on ``Decide`` and on ``Play`` alike, and keeps serving: the next decision is answered by the
same process, and a league's game goes on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import trio

from referee.game.engine import Game
from referee.game.rules import Rules
from referee.game.views import DecisionKind, SeatView
from referee.transport.client import BotClient, DecisionAsk
from tests.crosslang.helpers import NODE_DIR, NODE_MODULES
from tests.faults.helpers import RANDOM, run_league
from tests.transport.helpers import HELLO_TIMEOUT_S, BotLauncher

pytestmark = [pytest.mark.crosslang, pytest.mark.timeout(600)]

BUG = "a bug in decide at trick 2"
THROWING_STRATEGY = f"""'use strict';
// The sample's strategy, but for a bug on the second trick of every round.
const sample = require('./sample_strategy.js');

function decide(request) {{
  if (request.decision === 'PLAY_CARD' && request.view.trick_number === 2) throw new Error('{BUG}');
  return sample.decide(request);
}}

module.exports = {{ ...sample, decide }};
"""


def staged_throwing_bot(folder: Path) -> Path:
    """The Node sample in ``folder`` with a strategy that throws on trick 2; -> its bot.js."""
    folder.mkdir(mode=0o755)
    for name in ("bot.js", "package.json", "bot.proto"):
        shutil.copy(NODE_DIR / name, folder / name)
    shutil.copy(NODE_DIR / "strategy.js", folder / "sample_strategy.js")
    (folder / "strategy.js").write_text(THROWING_STRATEGY)
    (folder / "node_modules").symlink_to(NODE_MODULES)
    for path in folder.iterdir():
        if not path.is_symlink():
            path.chmod(0o644)
    folder.parent.chmod(0o755)
    return folder / "bot.js"


def view_at_trick(trick: int, *, seed: int = 3) -> tuple[SeatView, int]:
    """A 3-seat game's first PLAY decision at ``trick`` of round 1, and its number."""
    game = Game(3, Rules(), seed, game_id=f"node-errors-{trick}")
    number = 0
    while True:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        if view.decision is DecisionKind.PLAY and view.trick_number == trick:
            return view, number
        game.apply(seat, view.legal[0])
        number += 1


@pytest.mark.usefixtures("needs_node")
@pytest.mark.parametrize("path", ["stream", "unary"])
def test_a_throw_is_logged_with_its_stack_answered_as_an_error_and_the_bot_serves_on(
    path: str, short_tmp: Path, bots: BotLauncher
) -> None:
    script = staged_throwing_bot(short_tmp / "node")
    node = shutil.which("node")
    assert node is not None
    bot = bots.start(script, program=(node,))
    buggy, buggy_number = view_at_trick(2)
    fine, fine_number = view_at_trick(3)

    async def main() -> tuple[str | None, str, str | None]:
        client = BotClient(bot.address, "thrower")
        try:
            info = await client.hello(HELLO_TIMEOUT_S)
            assert info.streams, "the sample offers Play"
            client.plays_streams = path == "stream"
            failed = await client.decide(DecisionAsk(buggy, (), buggy_number, 5000, 0, 60.0))
            if path == "stream":
                client.end_play(buggy.game_id, buggy.seat)
            after = await client.decide(DecisionAsk(fine, (), fine_number, 5000, 0, 60.0))
            return failed.fault, failed.detail, after.fault
        finally:
            client.close()

    fault, detail, after = trio.run(main)
    assert fault == "malformed", detail
    assert "INTERNAL" in detail and BUG in detail, detail
    assert after is None, "the same process answers the next decision"
    assert bot.process.poll() is None, "the bot is still alive"
    output = bot.output()
    assert f"Error: {BUG}" in output and "at decide (" in output and "strategy.js:" in output, "the log holds the stack"


@pytest.mark.usefixtures("needs_node")
def test_in_a_league_the_game_goes_on_with_a_malformed_fault(short_tmp: Path) -> None:
    script = staged_throwing_bot(short_tmp / "node")
    records = run_league(
        short_tmp,
        {"node": ["node", str(script)], "random": RANDOM, "random-2": RANDOM},
        faults='preset = "league"\nmax_faults = 10',
        time="move_ms = 5000\ngrace_ms = 500",
    )
    assert len(records) == 3
    for record in records:
        seat = record.seats.index("node")
        faults = [fault for fault in record.faults if fault.bot == "node"]
        assert faults and {fault.kind for fault in faults} == {"malformed"}, faults
        assert all(BUG in fault.detail for fault in faults), faults
        first = min(fault.decision for fault in faults if fault.decision is not None)
        later = [action for action in record.actions[first + 1 :] if action.seat == seat]
        answered = [action for action in later if action.fault is None]
        assert answered and all(action.ms is not None for action in answered), "the same process answered on after the fault"
        assert len(answered) + len(faults) - 1 == len(later), "every later decision was answered, or was another trick 2"
    logs = sorted((short_tmp / "faults").glob("node-*.log"))
    assert len(logs) == 3, "one process per rotation of the deal, none restarted"
    text = "".join(log.read_text(errors="replace") for log in logs)
    assert f"Error: {BUG}" in text and "at decide (" in text
