"""check-bot covers the branches of the rules (issue 37): its situations, found by playing
seeded games, ask every branch of referee/checkbot/situations.py, and a bot with a bug in
any one branch, told apart by the bot itself from what it is sent
(tests/checkbot/bots/branch_bug_bot.py), fails the situation that asks that branch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from referee.transport.decode import request_to_view
from referee.checkbot.checks import CheckResult, CheckSettings, check_bot
from referee.checkbot.situations import BRANCHES, build_situations
from referee.cli.botspec import parse_bot
from referee.game.timecontrol import TimeControl
from referee.league.pool import BotEntry
from referee.sandbox import SandboxSettings, resolve_mode
from referee.transport import codec

BOTS = Path(__file__).parent / "bots"
sys.path.insert(0, str(BOTS))
from branch_bug_bot import BUGS  # noqa: E402

COVERAGE = build_situations()
KEYS = [branch.key for branch in BRANCHES]


def situation_of(branch: str):  # type: ignore[no-untyped-def]
    return next(situation for situation in COVERAGE.situations if branch in situation.branches)


def test_every_branch_is_asked_under_the_default_rules_and_the_bot_has_a_bug_for_each() -> None:
    assert COVERAGE.covered and sorted(COVERAGE.covered) == sorted(KEYS), (COVERAGE.missed, COVERAGE.impossible)
    assert sorted(BUGS) == sorted(KEYS), "the test bot knows every branch"


@pytest.mark.parametrize("branch", KEYS)
def test_the_bot_sees_each_branch_where_check_bot_asks_it(branch: str) -> None:
    """What the bot is sent (the request, decoded as the bot kit does) shows the branch."""
    situation = situation_of(branch)
    request = codec.view_to_request(situation.view, situation.events, situation.decision_number, 1000, 0)
    view, events = request_to_view(request)
    assert BUGS[branch](view, events), f"{situation.title}: the bot does not see {branch} there"


def check(bot: BotEntry, tmp: Path) -> dict[str, CheckResult]:
    mode, _ = resolve_mode(SandboxSettings())
    settings = CheckSettings(
        time=TimeControl(move_ms=5000, grace_ms=500, startup_ms=30_000), games=1, sandbox=SandboxSettings(mode=mode), run_dir=tmp / "logs"
    )
    opponents = (parse_bot("random", {bot.name}),)
    results = trio.run(check_bot, bot, opponents, settings)
    return {result.key: result for result in results}


@pytest.mark.parametrize("branch", KEYS)
def test_a_bug_in_one_branch_fails_the_situation_that_asks_it(branch: str, short_tmp: Path) -> None:
    bot = BotEntry(name="branch-bug", command=(sys.executable, str(BOTS / "branch_bug_bot.py"), branch), directory=BOTS)
    rows = check(bot, short_tmp)
    situation = situation_of(branch)
    row = rows[situation.key]
    assert row.status == "fail" and row.title == situation.title, row
    assert row.summary.startswith("malformed") and f"a bug in branch {branch}" in row.summary, row.summary
    asked = [rows[s.key] for s in COVERAGE.situations]
    assert all(r.status in ("pass", "fail") for r in asked), "every situation is asked"
    assert any(r.status == "pass" for r in asked), "a bug in one branch is not a bug everywhere"
