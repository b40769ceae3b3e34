"""The capped capture of one stream: head and tail kept, the middle counted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from referee.sandbox.output import StreamCapture


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
