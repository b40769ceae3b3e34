"""Games at once paced to the machine (docs/design.md §5): fewer while the referee finds
itself late, more again once it has been on time for a while; never below one or above
the league's concurrency."""

from __future__ import annotations

import time

import pytest
import trio

from referee.league.lateness import Heartbeat
from referee.league.pacing import CALM_CHECKS, Pace, Pacer


@pytest.mark.parametrize(
    ("pace", "late", "after"),
    [
        (Pace(4, 4), 0.5, Pace(3, 4)),
        (Pace(1, 4), 0.9, Pace(1, 4)),  # never below one
        (Pace(3, 4, calm=CALM_CHECKS - 1), 0.0, Pace(4, 4)),  # calm long enough: one more
        (Pace(3, 4, calm=0), 0.0, Pace(3, 4, calm=1)),
        (Pace(4, 4, calm=CALM_CHECKS - 1), 0.0, Pace(4, 4, calm=CALM_CHECKS)),  # never above the concurrency
        (Pace(3, 4, calm=2), 0.1, Pace(3, 4)),  # neither: calm starts again
    ],
)
def test_the_pace_follows_the_referees_lateness(pace: Pace, late: float, after: Pace) -> None:
    assert pace.next(late) == after


def test_a_stalled_referee_plays_fewer_games_at_once() -> None:
    beat = Heartbeat()  # fed by hand: the referee was stalled half of every second

    async def main() -> Pacer:
        pacer = Pacer(4, beat)
        with trio.move_on_after(3.5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pacer.keep_pace)
                while True:
                    now = time.monotonic()
                    beat.note(now, now + 0.5)
                    await trio.sleep(0.5)
        return pacer

    pacer = trio.run(main)
    assert pacer.limiter.total_tokens < 4 and pacer.lowest < 4
