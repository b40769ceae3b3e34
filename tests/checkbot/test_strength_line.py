"""check-bot's strength line: the bot's points per game against the sample bots with its
interval, from the referee's own standings, printed after the checks."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import referee.checkbot.strength
from tests.checkbot.test_check_bot_cli import SAMPLES, check

STRENGTH = re.compile(r"^strength against the sample bots over (\d+) games: ([+-]\d\.\d\d) pts/g (.*)$", re.MULTILINE)


def test_the_examples_of_the_strength_line_hold() -> None:
    assert doctest.testmod(referee.checkbot.strength).failed == 0


def test_check_bot_ends_with_the_strength_line(short_tmp: Path) -> None:
    code, _, out = check(short_tmp, "--games", "3", "--", "python", str(SAMPLES / "random_bot.py"))
    assert code == 0, out
    found = STRENGTH.search(out)
    assert found is not None, out
    assert found[1] == "3" and found[3] == "(an interval needs 6 deals: play 16 games or more)"
    code, _, out = check(short_tmp, "--games", "16", "--", "python", str(SAMPLES / "random_bot.py"))
    found = STRENGTH.search(out)
    assert code == 0 and found is not None, out
    low, high = re.fullmatch(r"\[([+-]\d\.\d\d) – ([+-]\d\.\d\d)\] \(95%\)", found[3]).groups()  # type: ignore[union-attr]
    assert float(low) <= float(found[2]) <= float(high)
