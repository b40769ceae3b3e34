"""A Python bot's start-up: the sample bot started by the sandbox answers Hello and a decision
in every mode."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import trio

from referee.sandbox import SandboxSettings, launch
from referee.sandbox.bwrap import SLOT_UIDS
from referee.transport.client import BotClient, DecisionAsk
from tests.conftest import REPO
from tests.sandbox import runtime
from tests.sandbox.helpers import next_slot, uids_of
from tests.transport.helpers import hand_view

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(120)]

SAMPLE = REPO / "sample_bots" / "python" / "random_bot.py"


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
