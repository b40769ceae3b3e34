"""Issue 35: bots get a system-call allowlist (referee/sandbox/allowlist.py, docs/sandbox.md).

- The sample bots of all five languages, and a Node bot started through a wrapper script,
  play a league under it without a fault and without a call refused, with a root referee and
  with a normal user's (bubblewrap in a user namespace); check-bot passes each sample.
- A bot that calls what the allowlist refuses gets the errno the docs give (``EPERM`` for a
  call refused on purpose, ``ENOSYS`` for one that is not on the list), the call named once in
  its log, however often it tries, and check-bot's ``refused-calls`` row names it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from referee.sandbox import futexwait, spawner
from tests.conftest import processes_matching, run_referee, write_config
from tests.crosslang.helpers import cpp_problem, go_problem, java_problem, node_problem, require
from tests.crosslang.test_samples_as_a_normal_user import staged_command
from tests.normal_user import NormalUser
from tests.sandbox_league.helpers import BOTS

pytestmark = [pytest.mark.sandbox, pytest.mark.crosslang, pytest.mark.timeout(900)]

PROBLEMS = {"python": lambda: None, "node": node_problem, "cpp": cpp_problem, "go": go_problem, "java": java_problem}
WRAPPER = '#!/bin/sh\n# a wrapper script, as a student writes one: the runtime it starts is the bot\nexec node bot.js\n'
REFUSED_LINE = re.compile(r"^\[referee\] refused: (.+?) \(not allowed for bots; docs/sandbox\.md\)$", re.MULTILINE)


def notified() -> bool:
    """Whether the referee names refused calls here (seccomp user notification; CI has it)."""
    if spawner.notified_available():
        return True
    if os.environ.get("CI") == "true":
        pytest.fail(f"the referee names refused calls in CI: {futexwait.problem()}")
    return False


def readable(folder: Path) -> None:
    """Every file and folder under ``folder`` readable by the sandbox's users."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink() and path.stat().st_nlink == 1:  # a hard link shares its mode with the original
            path.chmod(path.stat().st_mode | (0o555 if path.is_dir() else 0o444))


def stage_samples(tmp: Path) -> dict[str, list[str]]:
    """Every sample built here, and the Node sample behind a wrapper script, copied under
    ``tmp``; -> bot name -> command. In CI every language must be there."""
    commands = {}
    for language, problem in PROBLEMS.items():
        require(problem())
        commands[language] = staged_command(language, tmp / language)
    wrapped = tmp / "wrapped"
    shutil.copytree(tmp / "node", wrapped, symlinks=True)
    (wrapped / "run.sh").write_text(WRAPPER)
    (wrapped / "run.sh").chmod(0o755)
    commands["wrapped-node"] = [str(wrapped / "run.sh")]
    readable(tmp)
    return commands


def test_the_samples_of_five_languages_play_a_league_under_the_allowlist(
    short_tmp: Path, needs_bwrap: None, referee_user: NormalUser | None
) -> None:
    short_tmp.chmod(0o755)
    commands = stage_samples(short_tmp / "bots")
    results = short_tmp / "league.sqlite"
    lines = [
        "[league]", 'name = "allowlist"', "seed = 7", "table_size = 3", "deals = 1", "concurrency = 2", f'results = "{results}"',
        "[time]", "move_ms = 5000", "startup_ms = 60000", "[sandbox]", 'mode = "bwrap"',
        # a wrapper script gets the same RLIMIT_DATA as a runtime named directly, so the default
        # memory limit holds for all five languages and the wrapped one
    ]  # fmt: skip
    for name, command in commands.items():
        lines += ["[[bots]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    config = write_config(short_tmp / "league.toml", "\n".join(lines) + "\n")
    if referee_user is None:
        done = run_referee("run", str(config), "--no-live", timeout=800)
    else:
        referee_user.give(short_tmp)
        done = referee_user.run("run", str(config), "--no-live", cwd=short_tmp, timeout=800)
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(results) as db:
        records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games")]
    assert records and {bot for record in records for bot in record["seats"]} == set(commands), "every bot played"
    assert [fault for record in records for fault in record["faults"]] == [], "no fault under the allowlist"
    logs = sorted(results.with_suffix("").glob("*.log"))
    assert {path.stem.rsplit("-", 1)[0] for path in logs} >= set(commands)
    for path in logs:
        text = path.read_text(errors="replace")
        assert "mode bwrap" in text.splitlines()[0] and "seccomp on (allowlist" in text.splitlines()[0], text.splitlines()[0]
        assert not REFUSED_LINE.findall(text), f"{path.name}: a sample was refused a call: {REFUSED_LINE.findall(text)}"
    assert not processes_matching(str(short_tmp / "bots"))


@pytest.mark.parametrize("language", list(PROBLEMS))
def test_check_bot_passes_each_sample_with_no_call_refused(language: str, short_tmp: Path, needs_bwrap: None) -> None:
    short_tmp.chmod(0o755)
    require(PROBLEMS[language]())
    command = staged_command(language, short_tmp / language)
    readable(short_tmp / language)
    done = run_referee(
        "check-bot", "--logs", str(short_tmp / "logs"), "--games", "2", "--startup-ms", "60000", "--move-ms", "5000", "--", *command,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^all \d+ checks passed", done.stdout, re.M), done.stdout
    expected = "none refused" if notified() else "not told"
    assert f"makes only the system calls the sandbox allows — {expected}" in done.stdout, done.stdout


def test_a_refused_call_is_named_once_in_the_bots_log_and_by_check_bot(short_tmp: Path, needs_bwrap: None) -> None:
    """The bot tries io_uring_setup (refused on purpose: EPERM) and ptrace (not on the list:
    ENOSYS) 50 times each on every decision, and says what it got."""
    short_tmp.chmod(0o755)
    folder = short_tmp / "bot"
    folder.mkdir()
    for name in ("refused_calls_bot.py", "onthird.py"):
        shutil.copy(BOTS / name, folder / name)
    readable(folder)
    logs = short_tmp / "logs"
    done = run_referee(
        "check-bot", "--logs", str(logs), "--games", "1", "--startup-ms", "60000", "--move-ms", "5000", "--",
        "python", str(folder / "refused_calls_bot.py"), timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    texts = [path.read_text(errors="replace") for path in sorted(logs.glob("refused_calls_bot-*.log"))]
    assert texts, done.stdout
    joined = "".join(texts)
    assert "refused_calls_bot: io_uring_setup EPERM, ptrace ENOSYS" in joined, joined
    if not notified():
        return
    for text in texts:
        if "refused_calls_bot: " in text:
            assert REFUSED_LINE.findall(text).count("io_uring_setup") == 1, text
            assert REFUSED_LINE.findall(text).count("ptrace") == 1, text
    row = next(line for line in done.stdout.splitlines() if "makes only the system calls the sandbox allows" in line)
    assert row.startswith("FAIL") and "refused: io_uring_setup, ptrace (not allowed for bots; docs/sandbox.md)" in row, row
    assert not re.search(r"^all \d+ checks passed", done.stdout, re.M)
