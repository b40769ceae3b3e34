"""Every ``referee play`` and ``referee check-bot`` command in the sample bots' READMEs works
as written, from the repository root: the games it plays have no fault, and check-bot
passes (each is run with ``--games 1`` and its results in a temporary folder)."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import REPO, run_referee
from tests.crosslang.helpers import cpp_problem, go_problem, java_problem, node_problem, require

pytestmark = [pytest.mark.crosslang, pytest.mark.timeout(600)]

COMMAND = re.compile(r"^(?:\.venv/bin/)?referee (play|check-bot) (.*)$")
NEEDS = {"node": node_problem, "cpp": cpp_problem, "go": go_problem, "java": java_problem}


def readme_commands() -> list[tuple[str, list[str]]]:
    """(README, argv after ``referee``) of each command line in a ``sh`` block of a sample's README."""
    found = []
    for readme in sorted((REPO / "sample_bots").glob("*/README.md")):
        for block in re.findall(r"```sh\n(.*?)```", readme.read_text(), re.DOTALL):
            for line in block.splitlines():
                match = COMMAND.match(line.strip())
                if match:
                    found.append((str(readme.relative_to(REPO)), [match.group(1), *shlex.split(match.group(2), comments=True)]))
    return found


def with_games(argv: list[str], games: int) -> list[str]:
    if "--games" in argv:
        index = argv.index("--games")
        return [*argv[:index], *argv[index + 2 :], "--games", str(games)]
    if "--" in argv:
        index = argv.index("--")
        return [*argv[:index], "--games", str(games), *argv[index:]]
    return [*argv, "--games", str(games)]


def test_every_sample_readme_shows_commands() -> None:
    readmes = {readme for readme, _ in readme_commands()}
    assert readmes == {f"sample_bots/{language}/README.md" for language in ("python", "node", "cpp", "go", "java")}


@pytest.mark.parametrize(("readme", "argv"), readme_commands(), ids=lambda value: value if isinstance(value, str) else " ".join(value))
def test_a_readme_command_works_as_written(readme: str, argv: list[str], short_tmp: Path) -> None:
    words = " ".join(argv)
    for name, problem in NEEDS.items():
        if re.search(rf"\b{name}\b|sample_bots/{name}/", words):
            require(problem())
    command = with_games(argv, 1)
    if command[0] == "play":
        done = run_referee(*command, "--results", str(short_tmp / "play.sqlite"))
    else:
        index = command.index("--")
        done = run_referee(*command[:index], "--logs", str(short_tmp / "logs"), "--startup-ms", "30000", *command[index:])
    assert done.returncode == 0, f"{readme}: referee {words}\n{done.stdout}{done.stderr}"
    if command[0] == "play":
        with sqlite3.connect(short_tmp / "play.sqlite") as db:
            faults = [fault for (record,) in db.execute("SELECT record FROM games") for fault in json.loads(record)["faults"]]
        assert faults == [], f"{readme}: referee {words}: {faults}"
    else:
        assert "checks passed" in done.stdout, done.stdout
