"""The one flock helper of the sandbox (cgroups and slot uids): held until its descriptor
is closed, refused to a second open file meanwhile, never through a symbolic link."""

from __future__ import annotations

import os
from pathlib import Path

from referee.sandbox._locks import try_lock
from referee.sandbox.cgroups import GROUP_LOCK

FILE_LOCK = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW


def test_a_lock_is_held_until_its_descriptor_is_closed(tmp_path: Path) -> None:
    for path, flags in ((tmp_path / "61000.lock", FILE_LOCK), (tmp_path, GROUP_LOCK)):
        first = try_lock(path, flags)
        assert first is not None
        assert try_lock(path, flags) is None, "a second open file is refused while the first holds it"
        os.close(first)
        again = try_lock(path, flags)
        assert again is not None, "closing released it"
        os.close(again)
    assert (tmp_path / "61000.lock").stat().st_mode & 0o777 == 0o600


def test_a_missing_path_a_file_as_a_directory_and_a_link_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("")
    (tmp_path / "link").symlink_to(target)
    assert try_lock(tmp_path / "gone", GROUP_LOCK) is None
    assert try_lock(target, GROUP_LOCK) is None
    assert try_lock(tmp_path / "link", FILE_LOCK) is None
