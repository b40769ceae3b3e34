"""The pieces that keep a bot from reaching past its seat: the socket checks
(referee/sandbox/botsocket.py), the clean-up of any tree (referee/sandbox/cleanup.py) and
the escaping of bot text for a terminal (referee/report/safe_text.py)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from referee.report.safe_text import safe_markup, safe_text
from referee.sandbox.botsocket import SocketRefused, address_of, open_socket
from referee.sandbox.cleanup import remove_tree


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, tabs\tand\nnewlines", "plain text, tabs\tand\nnewlines"),
        ("\x1b[2Jclear", "\\x1b[2Jclear"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x9b31mred", "\\x9b31mred"),
        ("carriage\rreturn", "carriage\\x0dreturn"),
        ("nul\x00del\x7f", "nul\\x00del\\x7f"),
        ("bidi \u202eevil", "bidi \\u202eevil"),
        ("Ünïcödé ♠ stays", "Ünïcödé ♠ stays"),
    ],
)
def test_safe_text_shows_controls_inert(text: str, shown: str) -> None:
    assert safe_text(text) == shown


def test_safe_markup_escapes_rich_markup_too() -> None:
    assert safe_markup("[red]x\x1b") == "\\[red]x\\x1b"


def _bound(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    return server


def test_a_socket_of_ours_is_dialled_through_its_descriptor(tmp_path: Path) -> None:
    server = _bound(tmp_path / "bot.sock")
    home = os.open(tmp_path, os.O_PATH | os.O_DIRECTORY)
    try:
        assert open_socket(home, "missing.sock", os.geteuid(), who="bot b") is None
        fd = open_socket(home, "bot.sock", os.geteuid(), who="bot b")
        assert fd is not None
        (tmp_path / "bot.sock").rename(tmp_path / "moved.sock")  # what the bot does later does not matter
        client = socket.socket(socket.AF_UNIX)
        client.connect(address_of(fd).removeprefix("unix:"))
        client.close()
        os.close(fd)
    finally:
        os.close(home)
        server.close()


@pytest.mark.parametrize("kind", ["symlink", "file", "directory", "owner"])
def test_anything_but_the_bots_own_socket_is_refused(tmp_path: Path, kind: str) -> None:
    other = tmp_path / "other.sock"
    server = _bound(other)
    path = tmp_path / "bot.sock"
    uid = os.geteuid()
    if kind == "symlink":
        path.symlink_to(other)
    elif kind == "file":
        path.write_text("x")
    elif kind == "directory":
        path.mkdir()
    else:
        other.rename(path)
        uid += 1  # a socket, but not the bot's uid's
    home = os.open(tmp_path, os.O_PATH | os.O_DIRECTORY)
    try:
        expected = {"symlink": "a symbolic link", "file": "a regular file", "directory": "a directory", "owner": "belongs to uid"}
        with pytest.raises(SocketRefused, match=expected[kind]):
            open_socket(home, "bot.sock", uid, who="bot b")
    finally:
        os.close(home)
        server.close()


def test_remove_tree_copes_with_depth_links_and_mode_000(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    root = tmp_path / "home"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for level in range(2000):  # deeper than recursion and than PATH_MAX allows
        os.mkdir("directory-of-some-length", dir_fd=fd)
        if level == 10:
            os.symlink(outside, "link", dir_fd=fd)
        inner = os.open("directory-of-some-length", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.mkdir("locked", 0o000, dir_fd=fd)
    os.close(fd)
    remove_tree(root)
    assert not root.exists()
    assert (outside / "keep.txt").read_text() == "keep", "a link's target is never touched"
    remove_tree(root)  # nothing there: nothing to do
