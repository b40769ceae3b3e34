"""Every sample bot language passes `referee check-bot` under bubblewrap with the referee run
by a normal user (tests/normal_user.py), as it does with a root referee (test_java_bot.py,
test_go_bot.py, test_league_crosslang.py, tests/checkbot): bubblewrap in a user namespace,
and the shared futex waits of its threads answered by the referee (docs/sandbox.md "Threat
model"), not refused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.crosslang.helpers import (
    CPP_BOT, GO_BOT, JAVA_COMMAND, JAVA_JAR, NODE_DIR, cpp_problem, go_problem, java_problem, link_or_copy, node_problem, readable_by_all, require,
)  # fmt: skip
from tests.normal_user import NormalUser

pytestmark = [pytest.mark.crosslang, pytest.mark.sandbox, pytest.mark.timeout(600)]

PYTHON_SAMPLES = REPO / "sample_bots" / "python"


def staged_command(language: str, folder: Path) -> list[str]:
    """Copy the ``language`` sample into ``folder`` (where a normal user reaches it, wherever
    the checkout is); -> the command that runs it there."""
    if language == "python":
        shutil.copytree(PYTHON_SAMPLES, folder)
        return ["python", str(folder / "heuristic_bot.py")]
    if language == "node":
        shutil.copytree(NODE_DIR, folder, copy_function=link_or_copy, symlinks=True)
        return ["node", str(folder / "bot.js")]
    folder.mkdir()
    if language == "cpp":
        return [shutil.copy(CPP_BOT, folder)]
    if language == "go":
        return [shutil.copy(GO_BOT, folder)]
    return [*JAVA_COMMAND[:-1], shutil.copy(JAVA_JAR, folder)]


PROBLEMS = {"python": lambda: None, "node": node_problem, "cpp": cpp_problem, "go": go_problem, "java": java_problem}


@pytest.mark.parametrize("language", list(PROBLEMS))
def test_each_sample_passes_check_bot_when_a_normal_user_runs_it(
    language: str, short_tmp: Path, needs_bwrap: None, as_normal_user: NormalUser
) -> None:
    require(PROBLEMS[language]())
    short_tmp.chmod(0o755)
    command = staged_command(language, short_tmp / language)
    readable_by_all(short_tmp / language)
    logs = short_tmp / "logs"
    logs.mkdir()
    as_normal_user.give(logs)
    done = as_normal_user.run(
        "check-bot", "--logs", str(logs), "--games", "2", "--startup-ms", "30000", "--move-ms", "5000", "--", *command,
        cwd=short_tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks passed" in done.stdout and "FAIL" not in done.stdout, done.stdout
    first = next(logs.glob("*.log")).read_text(errors="replace").splitlines()[0]
    assert "mode bwrap" in first, first
    if os.environ.get("CI") == "true":
        assert "shared futex waits answered by the referee" in first, first
