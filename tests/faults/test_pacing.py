"""Games at once paced to the machine (docs/design.md §5): fewer while the machine holds
up the bots' decisions, more again once none has been held up for a while; never below
one or above the league's concurrency."""

from __future__ import annotations

import time

import pytest
import trio

from referee.league.lateness import HeldUp
from referee.league.pacing import CALM_CHECKS, SLOW_DOWN, Pace, Pacer


@pytest.mark.parametrize(
    ("pace", "held", "after"),
    [
        (Pace(4, 4), SLOW_DOWN, Pace(3, 4)),
        (Pace(1, 4), 9, Pace(1, 4)),  # never below one
        (Pace(3, 4, calm=CALM_CHECKS - 1), 0, Pace(4, 4)),  # calm long enough: one more
        (Pace(3, 4, calm=0), 0, Pace(3, 4, calm=1)),
        (Pace(4, 4, calm=CALM_CHECKS - 1), 0, Pace(4, 4, calm=CALM_CHECKS)),  # never above the concurrency
        (Pace(3, 4, calm=2), SLOW_DOWN - 1, Pace(3, 4)),  # neither: calm starts again
    ],
)
def test_the_pace_follows_the_decisions_held_up(pace: Pace, held: int, after: Pace) -> None:
    assert pace.next(held) == after


def test_a_machine_that_holds_up_decisions_gets_fewer_games_at_once() -> None:
    held = HeldUp()

    async def main() -> Pacer:
        pacer = Pacer(4, held)
        with trio.move_on_after(3.5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pacer.keep_pace)
                while True:
                    held.note(time.monotonic())
                    await trio.sleep(0.2)
        return pacer

    pacer = trio.run(main)
    assert pacer.limiter.total_tokens < 4 and pacer.lowest < 4
