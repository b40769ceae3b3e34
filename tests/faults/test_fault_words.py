"""``referee faults`` says what happened in plain words (issue 41, docs/design.md §5): no
gRPC status a student has to look up, and "asked N times" explained where it is shown.
The stored fault keeps the status as evidence (``--format json``). The bot page and the
game viewer take their words from the same function."""

from __future__ import annotations

import io

from rich.console import Console

from referee.game.records import FaultRecord
from referee.report.faults import faults_json, print_faults, print_summary
from referee.results.store import StoredFault

TIMEOUT = StoredFault("g-1", FaultRecord(
    "timeout", 1, "slow", 12, "deadline of 400 ms exceeded; asked 2 times, and each time the machine kept the bot", "",
    "DEADLINE_EXCEEDED: Deadline Exceeded", 412.0,
))  # fmt: skip
RAISED = StoredFault("g-1", FaultRecord("malformed", 0, "buggy", 3, "gRPC status INTERNAL: bot raised KeyError: 'x'", "", "INTERNAL: bot raised KeyError: 'x'", 2.0))


def shown(*faults: StoredFault) -> str:
    screen = io.StringIO()
    console = Console(file=screen, width=300)
    print_faults(console, faults, title="faults")
    print_summary(console, faults, title="summary")
    return screen.getvalue()


def test_referee_faults_prints_no_grpc_words() -> None:
    text = shown(TIMEOUT, RAISED)
    for word in ("DEADLINE_EXCEEDED", "Deadline Exceeded", "gRPC", "INTERNAL"):
        assert word not in text, text
    assert "no answer within 400 ms" in text and "nothing in time (stopped waiting after 412 ms)" in text
    assert "an error: bot raised KeyError" in text


def test_referee_faults_explains_asked_n_times() -> None:
    assert "asked 2 times (the referee asks a decision again, with a fresh deadline, when the machine, not the bot, kept the bot" in shown(TIMEOUT)


def test_the_data_keeps_the_status_as_evidence() -> None:
    assert "DEADLINE_EXCEEDED: Deadline Exceeded" in faults_json([TIMEOUT], league="l")


def test_the_bot_page_and_the_game_viewer_explain_asked_n_times() -> None:
    from referee.web.render import fault_view

    view = fault_view("g-1", TIMEOUT.fault)
    assert "asked 2 times (the referee asks a decision again" in view["detail"], view
    assert "DEADLINE_EXCEEDED" not in view["answered"]
