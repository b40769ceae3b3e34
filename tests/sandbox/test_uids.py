"""Slot uids: one per live bot process, never the same in two referees at once, handed out
round-robin, and claimable again once released (or once the holding referee is gone)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.sandbox import uids
from referee.sandbox.bwrap import SLOT_UIDS

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]

HOLDER = """
import sys
from pathlib import Path
from referee.sandbox import uids
uids.LOCK_DIR = Path(sys.argv[1])
uids._strays = set()  # like the test's own referee: slot uids that other referees' bots run as do not count
held = [uids.claim() for _ in range(int(sys.argv[2]))]
print(" ".join(str(c.uid) for c in held if c is not None), flush=True)
sys.stdin.read()  # hold them until told
"""


@pytest.fixture
def lock_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private lock folder, and no slot uid counted busy for running a process: other
    referees on this machine (their own lock folder) may run bots as any slot uid."""
    directory = tmp_path / "locks"
    monkeypatch.setattr(uids, "LOCK_DIR", directory)
    monkeypatch.setattr(uids, "_held", set())
    monkeypatch.setattr(uids, "_next", 0)
    monkeypatch.setattr(uids, "_strays", set())
    monkeypatch.setattr(uids, "uids_running", set)
    yield directory


def _holder(lock_dir: Path, count: int) -> tuple[subprocess.Popen[str], list[int]]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_dir), str(count)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    return holder, [int(uid) for uid in holder.stdout.readline().split()]


def test_two_referees_never_hold_the_same_uid(lock_dir: Path) -> None:
    holder, theirs = _holder(lock_dir, 3)
    try:
        assert theirs == list(SLOT_UIDS[:3])
        mine = [uids.claim() for _ in range(3)]
        assert [c.uid for c in mine if c is not None] == list(SLOT_UIDS[3:6])
    finally:
        holder.kill()
        holder.wait(10)
    again = uids.claim()  # round-robin: the next one, not the lowest freed
    assert again is not None and again.uid == SLOT_UIDS[6]


def test_a_released_uid_is_free_for_another_referee(lock_dir: Path) -> None:
    mine = uids.claim()
    assert mine is not None and mine.uid == SLOT_UIDS[0]
    mine.release()
    mine.release()  # idempotent
    holder, theirs = _holder(lock_dir, 1)
    holder.kill()
    holder.wait(10)
    assert theirs == [SLOT_UIDS[0]]


def test_uids_wrap_around_and_run_out(lock_dir: Path) -> None:
    held = [uids.claim() for _ in SLOT_UIDS]
    assert sorted(c.uid for c in held if c is not None) == list(SLOT_UIDS)
    assert uids.claim() is None
    held[5].release()  # type: ignore[union-attr]
    again = uids.claim()
    assert again is not None and again.uid == SLOT_UIDS[5]


def test_uids_busy_at_the_first_claim_are_looked_at_again_once_the_others_are_taken(lock_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: a referee started while other referees' bots ran as most slot uids kept
    skipping those uids after their referees ended, and a soak's restarts ran out."""
    monkeypatch.setattr(uids, "_strays", set(SLOT_UIDS[2:]))  # busy at the first claim, gone since
    held = [uids.claim() for _ in range(4)]
    assert [c.uid for c in held if c is not None] == [*SLOT_UIDS[:2], *SLOT_UIDS[2:4]]


def test_an_unsafe_lock_dir_falls_back_to_scanning_proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    monkeypatch.setattr(uids, "LOCK_DIR", link)
    monkeypatch.setattr(uids, "_held", set())
    monkeypatch.setattr(uids, "uids_running", lambda: {SLOT_UIDS[0]})
    claim = uids.claim()
    assert claim is not None and claim.uid != SLOT_UIDS[0] and claim.fd is None
    assert not any(target.iterdir())
    claim.release()


def test_the_lock_files_are_not_inherited(lock_dir: Path) -> None:
    claim = uids.claim()
    assert claim is not None and claim.fd is not None
    assert not os.get_inheritable(claim.fd)
    claim.release()
