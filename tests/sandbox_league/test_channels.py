"""Issue 23: two bots cannot talk under bubblewrap, whoever runs the referee. A sender puts
its hand where another sandbox could find it; the receiver, at the same table, looks on its
3rd decision and reports what it got in a ``malformed`` fault (``CHANNEL <json>``):

- a named kernel keyring (refused by the seccomp filter, docs/sandbox.md);
- futex waiters on a page of a runtime file both map (shared futexes: waits answered "look
  again" by the referee, wakes refused);
- System V shared memory and message queues, a POSIX message queue, an abstract Unix
  socket (kept apart by the IPC and network namespaces);
- io_uring's futex wait and wake on a page of a runtime file both map (issue 35: io_uring is
  off the allowlist, so its ring is never made).

Each runs with a root referee (the bots as slot uids) and a normal user's referee
(bubblewrap in a user namespace): the receiver learns nothing and the league completes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from referee.game.records import GameRecord
from tests.normal_user import NormalUser
from tests.sandbox_league.helpers import GAMES, OTHER, League, Staged, assert_no_process_left, assert_sandboxed, run_in_process, write_league


CHANNEL_MOVE_MS = 20_000


def play_pair(tmp: Path, staged: Staged, script: str, user: NormalUser | None) -> tuple[League, list[dict[str, Any]]]:
    """A league of ``script send`` (the bot ``bad``) against ``script receive`` at a table
    of 2, run by ``user``; -> the league and the receiver's reports, one per game."""
    bot = staged(script)
    # the futex receiver waits on 52 words, each answered after 20-40 ms: up to ~2 s, more on
    # a loaded machine; what is tested is what it learns, not its time
    league = write_league(tmp, [bot, "send"], staged, move_ms=CHANNEL_MOVE_MS)
    league.config.write_text(
        league.config.read_text().replace(json.dumps(["python", str(staged.random)]), json.dumps(["python", str(bot), "receive"]))
    )
    if user is None:
        records, _ = run_in_process(league)
    else:
        tmp.chmod(0o755)
        user.give(tmp)
        done = user.run("run", str(league.config), "--no-live", cwd=tmp)
        assert done.returncode == 0, done.stdout + done.stderr
        records = league.records()
    assert sorted(record.fixture for record in records) == list(range(GAMES)), "the league completed"
    assert_sandboxed(league, root_referee=user is None)
    assert "seccomp on" in league.log_text()
    return league, [receiver_report(record) for record in records]


def receiver_report(record: GameRecord) -> dict[str, Any]:
    """The receiver's report in ``record``: its ``malformed`` fault (or, on a machine so
    loaded that the answer came late, its ``timeout`` naming the late malformed answer)."""
    faults = [fault for fault in record.faults if fault.bot == OTHER and "CHANNEL " in fault.detail]
    assert len(faults) == 1, record.faults
    report: dict[str, Any] = json.loads(faults[0].detail.split("CHANNEL ", 1)[1])
    return report


def test_a_named_keyring_carries_nothing(short_tmp: Path, staged: Staged, referee_user: NormalUser | None) -> None:
    league, reports = play_pair(short_tmp, staged, "keyring_bot.py", referee_user)
    for report in reports:
        assert report == {"error": "EPERM"}, f"the receiver joined or read the keyring: {report}"
    assert "keyring_bot send: EPERM" in league.log_text()
    assert_no_process_left(staged.dir)


def test_futex_waiters_on_a_shared_runtime_file_carry_nothing(short_tmp: Path, staged: Staged, referee_user: NormalUser | None) -> None:
    """Where the referee answers shared futex calls itself (seccomp user notification; CI's
    kernel has it), every wait is answered "look again" (EAGAIN) and every wake refused
    (EINVAL); elsewhere both are refused (EINVAL)."""
    league, reports = play_pair(short_tmp, staged, "futex_bot.py", referee_user)
    answered = "shared futex waits answered by the referee" in league.log_text()
    if os.environ.get("CI") == "true":
        assert answered, "the referee answers shared futex waits in CI"
    for report in reports:
        assert report == {"woken": [], "errors": {"EAGAIN" if answered else "EINVAL": 52}}, f"a shared futex wait was allowed: {report}"
    assert "futex_bot send: wake EINVAL" in league.log_text()
    assert_no_process_left(staged.dir)


def test_system_v_ipc_posix_queues_and_abstract_sockets_carry_nothing(
    short_tmp: Path, staged: Staged, referee_user: NormalUser | None
) -> None:
    league, reports = play_pair(short_tmp, staged, "ipc_bot.py", referee_user)
    for report in reports:
        assert report == {"shm": "ENOENT", "msg": "ENOENT", "mq": "ENOENT", "abstract": "ECONNREFUSED"}, report
    assert "ipc_bot send: shm ok, msg ok, mq ok" in league.log_text(), "the sender's objects were made (in its own namespaces)"
    assert_no_process_left(staged.dir)


def test_io_uring_futex_operations_carry_nothing(short_tmp: Path, staged: Staged, referee_user: NormalUser | None) -> None:
    """Without the allowlist the receiver read the sender's hand exactly through waits queued
    on its ring (Linux 6.7+): io_uring_setup now fails with EPERM in both bots, and the refusal
    is named once in each bot's log where the referee names refused calls."""
    league, reports = play_pair(short_tmp, staged, "io_uring_bot.py", referee_user)
    for report in reports:
        assert report == {"error": "EPERM"}, f"a bot made an io_uring ring: {report}"
    text = league.log_text()
    assert "io_uring_bot send: EPERM" in text
    if "a refused call is named below" in text:
        for bot in ("bad", "random"):
            for path in league.logs(bot):
                named = path.read_text(errors="replace").count("refused: io_uring_setup (not allowed for bots; docs/sandbox.md)")
                assert named == 1, f"{path.name}: the refused call is named once per process ({named})"
    assert_no_process_left(staged.dir)
