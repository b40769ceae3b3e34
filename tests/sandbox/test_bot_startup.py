"""A Python bot's start-up: the bot kit serves before it loads the game's types and the codec
(they load in the background), a decision that comes meanwhile waits for them, and the sample
bot started by the sandbox answers Hello and a decision in every mode."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from referee.sandbox import SandboxSettings, launch
from referee.sandbox.bwrap import SLOT_UIDS
from referee.transport import codec
from referee.transport.client import BotClient, DecisionAsk
from tests.conftest import REPO
from tests.sandbox import runtime
from tests.sandbox.helpers import next_slot, uids_of
from tests.transport.helpers import hand_view

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(120)]

SAMPLE = REPO / "sample_bots" / "python" / "random_bot.py"
HEAVY = ["referee.game.views", "referee.game.cards", "referee.game.rules", "referee.transport.codec", "referee.botkit.decide"]

AT_START = f"""
import json, runpy, sys
runpy.run_path({str(SAMPLE)!r}, run_name="sample")  # the bot's module, not its serve()
loaded_at_start = [name for name in {HEAVY!r} if name in sys.modules]
import referee.botkit, referee.game.cards, referee.game.views
same = referee.botkit.Card is referee.game.cards.Card and referee.botkit.SeatView is referee.game.views.SeatView
print(json.dumps([loaded_at_start, same]))
"""

DECIDE_AT_ONCE = """
import sys
sys.setswitchinterval(1e-5)  # let the background load and this call interleave finely
from referee._proto.knockout_whist.v1 import bot_pb2 as pb, bot_pb2_grpc as pb_grpc
import grpc, runpy
bot = runpy.run_path(sys.argv[2], run_name="sample")["RandomBot"]()
from referee.botkit import start
server = start(bot, "unix:" + sys.argv[1])
request = pb.DecisionRequest.FromString(bytes.fromhex(sys.stdin.read()))
with grpc.insecure_channel("unix:" + sys.argv[1]) as channel:
    answer = pb_grpc.KnockoutWhistBotStub(channel).Decide(request, timeout=60)
print(answer.WhichOneof("action"), answer.play.rank, answer.play.suit)
server.stop(None)
"""


def test_the_sample_bot_loads_no_game_types_before_it_serves() -> None:
    done = subprocess.run([sys.executable, "-c", AT_START], capture_output=True, text=True, timeout=60, check=True)
    loaded_at_start, same = json.loads(done.stdout)
    assert loaded_at_start == []
    assert same, "referee.botkit.Card and SeatView are the game's own classes"


def test_a_decision_asked_while_the_kit_still_loads_waits_for_it(short_tmp: Path) -> None:
    request = codec.view_to_request(hand_view(), [], 0, 0, 0)
    legal = request.legal[0].play
    for attempt in range(3):
        socket = short_tmp / f"kit{attempt}.sock"
        done = subprocess.run(
            [sys.executable, "-c", DECIDE_AT_ONCE, str(socket), str(SAMPLE)],
            input=request.SerializeToString().hex(), capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["play", str(legal.rank), str(legal.suit)], done.stderr


@pytest.mark.parametrize("mode", ["bwrap", "rlimits", "none"])
def test_the_sample_bot_answers_hello_and_a_decision(mode: str, run_dir: Path, request: pytest.FixtureRequest) -> None:
    if mode != "none":
        request.getfixturevalue("needs_bwrap" if mode == "bwrap" else "rlimits_python")
    python = request.getfixturevalue("rlimits_python") if mode == "rlimits" else "python"
    # the rlimits mode's slot uid reaches the bot's folder only where other users can: the
    # repository may be cloned inside a 0700 folder, so the bot is copied where they can
    folder = runtime.reachable_directory("kws-sample-") if mode == "rlimits" else SAMPLE.parent
    if mode == "rlimits":
        shutil.copyfile(SAMPLE, folder / SAMPLE.name)
        (folder / SAMPLE.name).chmod(0o644)
    request.addfinalizer(lambda: shutil.rmtree(folder) if folder != SAMPLE.parent else None)
    process = launch([python, SAMPLE.name], name="sample", slot=next_slot(), bot_dir=folder, run_dir=run_dir,
                     settings=SandboxSettings(mode=mode))  # type: ignore[arg-type]

    async def main() -> str:
        client = BotClient(process.address, "sample")
        try:
            info = await client.hello(60)
            assert info.name == "random"
            reply = await client.decide(DecisionAsk(hand_view(), [], 0, 0, 0, 60))
            assert reply.fault is None, reply.detail
            return reply.answer
        finally:
            client.close()

    try:
        assert trio.run(main) == str(hand_view().hand[0])  # KC, the one legal card
        if mode == "rlimits" and os.geteuid() == 0:  # the bot that answered runs as a slot uid, never root
            assert uids_of({process.pid}) == {process.uid} and process.uid in SLOT_UIDS
    finally:
        process.kill()
