"""Commands are run as given: check-bot keeps a virtualenv's interpreter path (its
``bin/python`` is a link to the base interpreter, which lacks the virtualenv's packages),
and ``referee play`` and ``check-bot`` refuse a command that cannot run, up front, in one
line with a command that would work, as a league config does."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pytest

from referee.cli.check_bot import bot_entry
from tests.conftest import REPO, run_referee

SAMPLES = REPO / "sample_bots" / "python"
VENV_PYTHON = Path(sys.executable)  # the referee's own virtualenv's bin/python, a link


def check_bot_args(*command: str) -> argparse.Namespace:
    return argparse.Namespace(command=["--", *command], address=None, name=None, ro_path=[])


def test_check_bot_keeps_the_path_of_a_virtualenvs_python() -> None:
    if VENV_PYTHON.resolve() == VENV_PYTHON.absolute():
        pytest.skip("the referee does not run from a virtualenv here")
    relative = os.path.relpath(VENV_PYTHON, Path.cwd())
    entry = bot_entry(check_bot_args(relative, str(SAMPLES / "heuristic_bot.py")))
    assert entry.command[0] == os.path.abspath(relative)
    assert entry.command[0] != str(VENV_PYTHON.resolve())


def test_check_bot_of_a_sample_run_by_the_virtualenvs_python_passes(short_tmp: Path) -> None:
    if VENV_PYTHON.resolve() == VENV_PYTHON.absolute():
        pytest.skip("the referee does not run from a virtualenv here")
    # as the README writes it: .venv/bin/python sample_bots/python/heuristic_bot.py
    command = [os.path.relpath(VENV_PYTHON, REPO), "sample_bots/python/heuristic_bot.py"]
    done = run_referee("check-bot", "--logs", str(short_tmp / "logs"), "--games", "2", "--startup-ms", "30000", "--", *command)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 16 checks passed" in done.stdout


@pytest.mark.parametrize("command", ["play", "check-bot"])
def test_a_script_given_as_a_program_is_refused_up_front_in_one_line(command: str, short_tmp: Path) -> None:
    script = "sample_bots/python/heuristic_bot.py"  # as sample_bots/python/README.md once wrote it
    if command == "play":
        done = run_referee("play", script, "random", "--results", str(short_tmp / "play.sqlite"))
    else:
        done = run_referee("check-bot", "--logs", str(short_tmp / "logs"), "--", script)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert f"{script}' is a script, not a program: start it with its interpreter" in line  # check-bot: made absolute
    assert 'e.g. "python ' in line and f'{script}"' in line
    assert list(short_tmp.iterdir()) == [], "nothing was started"
