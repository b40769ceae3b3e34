"""The deadlines of answers awaited on ``Play`` streams (``referee.transport.stream``): one
thread cancels a stream whose answer is overdue, never one whose deadline was disarmed,
and an earlier deadline armed while it sleeps towards a later one still fires."""

from __future__ import annotations

import threading
import time
from typing import Any, cast

from referee.transport.stream import _Deadlines

WAIT_S = 30.0  # generous: the machine may be busy; nothing here times the referee


class FakeStream:
    def __init__(self) -> None:
        self.expired = threading.Event()

    def _expire(self) -> None:
        self.expired.set()


def test_an_overdue_answer_cancels_its_stream_and_disarm_says_so() -> None:
    deadlines = _Deadlines()
    stream = FakeStream()
    token = deadlines.arm(time.monotonic() + 0.01, cast(Any, stream))
    assert stream.expired.wait(WAIT_S)
    assert deadlines.disarm(token) is True


def test_a_disarmed_deadline_never_fires() -> None:
    deadlines = _Deadlines()
    answered, later = FakeStream(), FakeStream()
    token = deadlines.arm(time.monotonic() + 0.01, cast(Any, answered))
    assert deadlines.disarm(token) is False
    deadlines.arm(time.monotonic() + 0.05, cast(Any, later))  # fires after the disarmed one was due
    assert later.expired.wait(WAIT_S)
    assert not answered.expired.is_set()


def test_an_earlier_deadline_wakes_the_thread_sleeping_towards_a_later_one() -> None:
    deadlines = _Deadlines()
    far, near = FakeStream(), FakeStream()
    deadlines.arm(time.monotonic() + 3600, cast(Any, far))
    deadlines.arm(time.monotonic() + 0.01, cast(Any, near))
    assert near.expired.wait(WAIT_S)
    assert not far.expired.is_set()
