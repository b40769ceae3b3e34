"""The demo league runs sandboxed by default on a host where bubblewrap works, and its
standings are those of the same league run unsandboxed: the sandbox changes no result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.sandbox import NONE_WARNING, RLIMITS_WARNING
from tests.conftest import REPO, processes_matching, run_referee

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.timeout(240)]

DEMO = REPO / "tournaments" / "demo.toml"
TIMING = "decision_ms"


def play_demo(config: Path, results: Path) -> tuple[str, dict[str, Any]]:
    """``referee run CONFIG --no-live --results RESULTS`` from the repository root (the
    config's paths are relative to it) -> (its output, the standings as JSON without the
    timing columns)."""
    done = run_referee("run", str(config), "--no-live", "--results", str(results))
    assert done.returncode == 0, done.stdout + done.stderr
    shown = run_referee("standings", str(results), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    standings: dict[str, Any] = json.loads(shown.stdout)
    for row in standings["rows"]:
        del row[TIMING]
    return done.stdout + done.stderr, standings


def first_log_lines(run_dir: Path) -> list[str]:
    logs = sorted(run_dir.glob("*.log"))
    assert logs, f"no bot log in {run_dir}"
    return [path.read_text(errors="replace").splitlines()[0] for path in logs]


def test_the_demo_runs_under_bwrap_by_default_with_the_standings_of_an_unsandboxed_run(short_tmp: Path, needs_bwrap: None) -> None:
    text = DEMO.read_text()
    assert '\nmode = "auto"' in text, "the demo leaves the sandbox mode to the host"
    unsandboxed = short_tmp / "unsandboxed.toml"
    unsandboxed.write_text(text.replace('\nmode = "auto"', '\nmode = "none"', 1))

    output, sandboxed_standings = play_demo(DEMO, short_tmp / "a.sqlite")
    assert RLIMITS_WARNING not in output and NONE_WARNING not in output
    assert all("(mode bwrap," in line for line in first_log_lines(short_tmp / "a")), "every bot ran under bwrap"
    assert not processes_matching(str(short_tmp / "a")), "no bwrap of this league is left"

    output, plain_standings = play_demo(unsandboxed, short_tmp / "b.sqlite")
    assert NONE_WARNING in output
    assert all("(mode none," in line for line in first_log_lines(short_tmp / "b"))

    assert sandboxed_standings["games"] == 24
    assert sandboxed_standings == plain_standings
    assert not any(sum(row["faults"].values()) for row in sandboxed_standings["rows"]), "no bot faulted in either run"
