"""The Java sample bot (sample_bots/java, built by `make bots` from Debian's packages): the
JVM starts in the sandbox (it reads /etc/java-17-openjdk), the bot serves on the Unix socket
it is given, passes every check of `referee check-bot` in the sandbox, plays a league
against the other samples without a fault, and, idle under bubblewrap, uses next to no CPU
(the `java` launcher's thread that joins the JVM's waits, answered by the referee: it does
not spin; docs/sandbox.md "Threat model")."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_referee, write_config
from tests.crosslang.helpers import JAVA_COMMAND, JAVA_JAR
from tests.normal_user import NormalUser

IDLE_SECONDS = 5.0
IDLE_CPU_BOUND_S = 0.5  # a JVM spinning on its join used ~1.6-2.8 s of CPU in 5 s; idle, ~0.01

pytestmark = [pytest.mark.crosslang, pytest.mark.usefixtures("needs_java"), pytest.mark.timeout(600)]


def test_check_bot_and_play_accept_a_classpath_command(short_tmp: Path) -> None:
    """``java -cp DIR:DIR Main`` as a shell runs it (issue 37): no file among its words, a
    classpath glob that Java expands itself, folders outside the current one readable in
    the sandbox."""
    classes = short_tmp / "classes"
    classes.mkdir()
    subprocess.run(["jar", "--extract", "--file", str(JAVA_JAR)], cwd=classes, check=True)
    short_tmp.chmod(0o755)
    for path in [classes, *classes.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    classpath = f"{classes}:/usr/share/java/*"
    command = ["java", "-XX:+UseSerialGC", "-cp", classpath, "org.knockoutwhist.sample.Main"]
    done = run_referee(
        "check-bot", "--logs", str(short_tmp / "logs"), "--startup-ms", "30000", "--move-ms", "5000", "--games", "1", "--", *command
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check-bot org.knockoutwhist.sample.Main: java" in done.stdout and "FAIL" not in done.stdout
    played = run_referee("play", " ".join(command), "random", "--games", "2", "--results", str(short_tmp / "play.sqlite"))
    assert played.returncode == 0, played.stdout + played.stderr
    assert "what org.knockoutwhist.sample.Main (seat" in played.stdout
    with sqlite3.connect(short_tmp / "play.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2

def test_the_java_build_reads_the_sources_as_utf8() -> None:
    """The proto's comments hold "§": javac in a C or ASCII locale fails without -encoding."""
    assert "§" in (Path(__file__).parents[2] / "protos" / "knockout_whist" / "v1" / "bot.proto").read_text()
    done = subprocess.run(
        ["make", "--always-make", "--dry-run", "-C", str(JAVA_JAR.parents[1])], capture_output=True, text=True, env={**os.environ, "LANG": "C"}
    )
    javac = [line for line in done.stdout.splitlines() if line.lstrip().startswith("javac ")]
    assert javac and all("-encoding UTF-8" in line for line in javac), done.stdout

def test_the_java_bot_passes_check_bot_in_the_sandbox(short_tmp: Path) -> None:
    done = run_referee(
        "check-bot", "--logs", str(short_tmp / "logs"), "--startup-ms", "30000", "--move-ms", "5000", "--games", "4", "--", *JAVA_COMMAND
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks passed" in done.stdout and "FAIL" not in done.stdout
    assert "as 'java-sample'" in done.stdout
    first = next((short_tmp / "logs").glob("*.log")).read_text(errors="replace").splitlines()[0]
    if os.environ.get("CI") == "true":
        assert "mode bwrap" in first, first


def test_the_java_bot_plays_a_league_without_a_fault(short_tmp: Path) -> None:
    lines = [
        "[league]", 'name = "java"', "seed = 4", "table_size = 3", "deals = 1", "concurrency = 2",
        f'results = "{short_tmp / "java.sqlite"}"', "[time]", "move_ms = 3000", "startup_ms = 30000",
        "[[bots]]", 'name = "java"', f"command = {json.dumps(JAVA_COMMAND)}",
        "[[bots]]", 'name = "heuristic"', 'command = ["python", "sample_bots/python/heuristic_bot.py"]',
        "[[bots]]", 'name = "random"', 'command = ["python", "sample_bots/python/random_bot.py"]',
    ]  # fmt: skip
    done = run_referee("run", str(write_config(short_tmp / "java.toml", "\n".join(lines) + "\n")), "--no-live")
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(short_tmp / "java.sqlite") as db:
        records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games")]
    assert len(records) == 3
    assert [fault for record in records for fault in record["faults"]] == []


@pytest.mark.parametrize("runner", ["root", "normal-user"])
def test_an_idle_java_bot_uses_almost_no_cpu_under_bubblewrap(
    runner: str, short_tmp: Path, needs_bwrap: None, request: pytest.FixtureRequest
) -> None:
    """CPU time, not wall time: the bot's processes over 5 s after Hello, with a referee run
    as root (the tests' own user when they do not run as root) and as a normal user."""
    user: NormalUser | None = None
    if runner == "normal-user":
        user = request.getfixturevalue("as_normal_user")
    elif os.geteuid() != 0:
        pytest.skip("the tests do not run as root")
    short_tmp.chmod(0o755)
    bot_dir, run_dir = short_tmp / "java", short_tmp / "run"
    bot_dir.mkdir()
    run_dir.mkdir()
    shutil.copy(JAVA_JAR, bot_dir / JAVA_JAR.name)  # where a normal user reaches it, wherever the checkout is
    script = shutil.copy(Path(__file__).with_name("idle_cpu.py"), short_tmp / "idle_cpu.py")
    for path in (bot_dir, *bot_dir.iterdir(), Path(script)):
        path.chmod(0o755 if path.is_dir() else 0o644)
    command = [str(IDLE_SECONDS), str(bot_dir), str(run_dir), "--", *JAVA_COMMAND[:-1], str(bot_dir / JAVA_JAR.name)]
    if user is None:
        done = run_script([sys.executable, str(script), *command], short_tmp)
    else:
        user.give(run_dir)
        done = user.command([user.python, str(script), *command], cwd=short_tmp, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert "mode bwrap" in measured["first_line"], measured["first_line"]
    if os.environ.get("CI") == "true":
        assert "shared futex waits answered by the referee" in measured["first_line"], measured["first_line"]
    assert measured["cpu_s"] < IDLE_CPU_BOUND_S, f"an idle Java bot used {measured['cpu_s']:.2f} s of CPU in {IDLE_SECONDS:g} s"


def run_script(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
