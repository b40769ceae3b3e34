"""Commands are run as given: check-bot keeps a virtualenv's interpreter path (its
``bin/python`` is a link to the base interpreter, which lacks the virtualenv's packages),
and ``referee play`` and ``check-bot`` refuse a command that cannot run, up front, in one
line with a command that would work, as a league config does."""

from __future__ import annotations

import argparse
import os
import shutil
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
    assert "checks passed" in done.stdout and "FAIL" not in done.stdout


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


def test_a_command_is_split_and_its_globs_expanded_as_a_shell_would(tmp_path: Path) -> None:
    from referee.cli.botspec import shell_words

    (tmp_path / "data").mkdir()
    for name in ("b.json", "a.json", "notes.txt"):
        (tmp_path / "data" / name).write_text("{}")
    assert shell_words("python bot.py data/*.json", tmp_path) == ["python", "bot.py", "data/a.json", "data/b.json"]
    assert shell_words("python bot.py 'data/*.json'", tmp_path) == ["python", "bot.py", "data/*.json"], "quoted: as written"
    assert shell_words("java -cp build:lib/* Main", tmp_path) == ["java", "-cp", "build:lib/*", "Main"], "no match: as written"
    assert shell_words('node "my bot.js"', tmp_path) == ["node", "my bot.js"]


def test_a_classpath_command_without_a_file_runs_here_and_may_read_the_folders_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.cli.botspec import parse_bot

    if shutil.which("java") is None:
        pytest.skip("java is not installed")
    here, elsewhere = tmp_path / "bot", tmp_path / "lib"
    (here / "build").mkdir(parents=True)
    elsewhere.mkdir()
    monkeypatch.chdir(here)
    entry = parse_bot(f"java -cp build:{elsewhere}/* Main", set())
    assert entry.command == ("java", "-cp", f"build:{elsewhere}/*", "Main")
    assert entry.name == "Main" and entry.directory == here
    assert entry.ro_paths == (str(elsewhere),), "the sandbox lets it read the folder its classpath names"


def test_a_wrapper_script_runs_in_its_own_folder_under_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.cli.botspec import parse_bot

    bot = tmp_path / "mybot"
    bot.mkdir()
    script = bot / "run.sh"
    script.write_text("#!/bin/sh\nexec node bot.js\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    entry = parse_bot("./mybot/run.sh", set())
    assert entry.command == (str(script),) and entry.directory == bot and entry.name == "run"
