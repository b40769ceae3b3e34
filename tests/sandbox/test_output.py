"""The capped capture of one stream: head and tail kept, the middle counted."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from referee.sandbox.output import OutputLog, StreamCapture


@given(chunks=st.lists(st.binary(max_size=50), max_size=30), cap=st.integers(min_value=1, max_value=64))
def test_head_and_tail_are_the_first_and_last_bytes_and_the_rest_is_counted(chunks: list[bytes], cap: int) -> None:
    capture = StreamCapture("stdout", cap)
    written = b"".join(capture.add(chunk) for chunk in chunks)
    data = b"".join(chunks)
    assert written == bytes(capture.head) == data[:cap]
    rest = data[cap:]
    assert bytes(capture.tail) == rest[-cap:] if rest else capture.tail == b""
    assert capture.total == len(data)
    assert capture.dropped == max(0, len(data) - 2 * cap)
    assert capture.tail_text(cap).encode() == data[-cap:] or not data.isascii()


def test_head_text_replaces_bad_bytes() -> None:
    capture = StreamCapture("stderr", 8)
    capture.add(b"ok\xff\n" + b"x" * 100)
    assert capture.head_text(4) == "ok\ufffd\n"


def test_the_log_interleaves_the_streams_by_whole_lines_and_ends_with_the_counts(tmp_path: Path) -> None:
    log = OutputLog(tmp_path / "bot.log", cap_bytes=1024)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    log.start(out_r, err_r)
    os.write(out_w, b"first half ")
    time.sleep(0.05)
    os.write(err_w, b"an error line\n")
    time.sleep(0.05)
    os.write(out_w, b"second half\n" + b"x" * 3000)
    os.close(out_w)
    os.close(err_w)
    log.finish(wait_s=5)
    text = (tmp_path / "bot.log").read_text()
    assert "first half second half\n" in text
    assert "an error line\n" in text
    assert f"[stdout: {11 + 12 + 3000} bytes, {11 + 12 + 3000 - 2048} dropped]" in text
    assert text.endswith("[stderr: 14 bytes, 0 dropped]\n")
    assert (tmp_path / "bot.log").stat().st_mode & 0o077 == 0  # the bot's log is the referee's
