"""Bot folders for the workers: hash, archive, unpack, and the refusal of a changed folder."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from referee.cluster.bundle import BotBundle, BundleError, BundleMismatch, BundleTooLarge, bundle_bot, pack, relocate, tree_hash, unpack


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


def test_a_file_that_vanishes_while_the_folder_is_read_is_left_out_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once another league's SQLite ``-shm`` vanished mid-pack: a raw FileNotFoundError."""
    bot = make_bot(tmp_path / "bot")
    victim = bot / "lib" / "scratch.txt"
    real_walk = os.walk

    def walk(top: object, *args: object, **kwargs: object) -> object:
        """Each time the folder is listed the file is there, and gone right after (as a
        journal that comes and goes): whoever reads it after listing finds nothing."""
        for entry in real_walk(top, *args, **kwargs):  # type: ignore[call-overload]
            if Path(entry[0]) == victim.parent:
                victim.write_text("here when listed, gone when read\n")
                entry[2].append(victim.name)
            yield entry
            victim.unlink(missing_ok=True)

    monkeypatch.setattr(os, "walk", walk)
    bundle = bundle_bot("b", bot, shared=False)
    assert bundle.vanished == ("lib/scratch.txt",)
    assert bundle_bot("b", bot, shared=True).sha256 == bundle.sha256
    monkeypatch.undo()
    folder = unpack(bundle, tmp_path / "cache")  # the hash describes what was packed
    assert not (folder / "lib" / "scratch.txt").exists()


def test_only_what_the_bot_needs_travels(tmp_path: Path) -> None:
    """Results files, their journals, logs, exported sites, results folders and the
    league's run folder sit beside a bot (its 'dir' is often the repository): none travels."""
    from referee.results.store import ResultsStore

    bot = make_bot(tmp_path / "bot")
    (bot / "book.sqlite").write_bytes(b"SQLite format 3\0" + b"\0" * 100)  # the bot's own data: kept
    store = ResultsStore.open(bot / "night.sqlite", league="night", fingerprint="x", config_text="", resume=False)
    for suffix in ("-wal", "-shm", "-journal"):
        (bot / f"other.sqlite{suffix}").write_bytes(b"journal")
    (bot / "bot.log").write_text("log\n")
    (bot / "bot-1.log.previous").write_text("log\n")
    for page in ("index.html", "games.html", "h2h.html"):
        (bot / "site").mkdir(exist_ok=True)
        (bot / "site" / page).write_text("<html>")
    (bot / "results" / "night").mkdir(parents=True)
    (bot / "results" / "x.sqlite").write_text("x")
    (bot / "runs" / "night").mkdir(parents=True)
    (bot / "runs" / "night" / "heuristic-1").write_text("home")
    try:
        bundle = bundle_bot("b", bot, shared=False, skip=[bot / "runs" / "night"])
    finally:
        store.close()
    assert bundle.archive is not None
    with tarfile.open(fileobj=io.BytesIO(bundle.archive)) as archive:
        names = sorted(archive.getnames())
    assert names == ["book.sqlite", "bot.py", "lib/strategy.py", "run.sh"]
    assert bundle.skip == ("runs/night",)
    shared = bundle_bot("b", bot, shared=True, skip=[bot / "runs" / "night"])
    (bot / "runs" / "night" / "heuristic-2").write_text("another home")  # the league writes on: no matter
    assert unpack(shared, tmp_path / "cache") == bot.absolute()


def test_a_command_file_outside_the_folder_is_one_line_naming_the_bot(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    (tmp_path / "shared.py").write_text("")
    with pytest.raises(BundleError, match=r"bot 'b': its command names .*shared\.py, outside its folder") as raised:
        bundle_bot("b", bot, shared=False, command=("python", str(bot / "bot.py"), str(tmp_path / "shared.py")))
    assert "\n" not in str(raised.value)
    assert bundle_bot("b", bot, shared=False, command=("python", str(bot / "bot.py"))).archive
