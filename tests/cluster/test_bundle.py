"""Bot folders for the workers: hash, archive, unpack, and the refusal of a changed folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.cluster.bundle import BotBundle, BundleMismatch, BundleTooLarge, bundle_bot, pack, relocate, tree_hash, unpack


def make_bot(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "bot.py").write_text("print('hi')\n")
    (root / "lib" / "strategy.py").write_text("X = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0junk")
    return root


def test_archive_unpacks_to_the_same_hash_and_ignores_bytecode(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    bundle = bundle_bot("b", bot, shared=False)
    assert bundle.archive is not None
    folder = unpack(bundle, tmp_path / "cache")
    assert folder == tmp_path / "cache" / bundle.sha256
    assert tree_hash(folder) == bundle.sha256
    assert (folder / "lib" / "strategy.py").read_text() == "X = 1\n"
    assert os.access(folder / "run.sh", os.X_OK)
    assert not (folder / "__pycache__").exists()
    assert unpack(bundle, tmp_path / "cache") == folder  # the second time: the folder already there
    (folder / "bot.py").write_text("changed on the worker\n")
    with pytest.raises(BundleMismatch, match="changed on this worker"):
        unpack(bundle, tmp_path / "cache")


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "bot.py").write_text("print('ho')\n"),
        lambda root: (root / "lib" / "new.py").write_text(""),
        lambda root: (root / "run.sh").chmod(0o644),
        lambda root: (root / "lib" / "strategy.py").rename(root / "strategy.py"),
    ],
    ids=["content", "new file", "executable bit", "moved"],
)
def test_any_change_to_the_folder_changes_its_hash(tmp_path: Path, change: object) -> None:
    bot = make_bot(tmp_path / "bot")
    before = tree_hash(bot)
    change(bot)  # type: ignore[operator]
    assert tree_hash(bot) != before


def test_an_archive_that_does_not_match_its_hash_is_refused_and_not_kept(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    real = bundle_bot("b", bot, shared=False)
    (bot / "bot.py").write_text("print('tampered')\n")
    forged = BotBundle("b", real.source, real.sha256, pack(bot))
    with pytest.raises(BundleMismatch, match=f"expected {real.sha256[:12]}"):
        unpack(forged, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_shared_folder_is_checked_in_place(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    bundle = bundle_bot("b", bot, shared=True)
    assert bundle.archive is None
    assert unpack(bundle, tmp_path / "cache") == bot.absolute()
    (bot / "bot.py").write_text("changed\n")
    with pytest.raises(BundleMismatch, match="differs from the coordinator's"):
        unpack(bundle, tmp_path / "cache")


def test_a_huge_folder_is_a_config_error_naming_the_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.cluster.bundle.MAX_BYTES", 10)
    bot = make_bot(tmp_path / "bot")
    with pytest.raises(BundleTooLarge, match="bot 'big'.*own 'dir'"):
        bundle_bot("big", bot, shared=False)


def test_relocate_moves_only_paths_inside_the_bot_folder() -> None:
    command = ("python", "/repo/bots/x/bot.py", "--depth", "3", "/usr/share/data")
    assert relocate(command, Path("/repo/bots/x"), Path("/cache/abc")) == (
        "python",
        "/cache/abc/bot.py",
        "--depth",
        "3",
        "/usr/share/data",
    )
