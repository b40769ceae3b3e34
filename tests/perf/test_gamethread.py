"""referee.league.gamethread: a game's loop on its own thread, awaited in trio."""

from __future__ import annotations

import threading
from functools import partial

import pytest
import trio

from referee.errors import MatchStopped
from referee.league.gamethread import Stopped, run_game_thread


def test_returns_the_result_made_on_another_thread() -> None:
    async def main() -> tuple[str, bool]:
        def play(stopped: Stopped) -> str:
            return threading.current_thread().name

        name = await run_game_thread(play, on_stop=lambda: None, name="game g1")
        return name, name != threading.current_thread().name

    name, elsewhere = trio.run(main)
    assert elsewhere and name == "game g1"


def test_an_error_of_the_loop_is_raised_in_the_waiting_task() -> None:
    def play(stopped: Stopped) -> None:
        raise ValueError("engine bug")

    async def main() -> None:
        await run_game_thread(play, on_stop=lambda: None)

    with pytest.raises(ValueError, match="engine bug"):
        trio.run(main)


def test_cancelling_stops_the_loop_calls_on_stop_and_waits_for_the_thread() -> None:
    hung_up = threading.Event()
    finished = threading.Event()
    began = threading.Event()

    def play(stopped: Stopped) -> None:
        began.set()
        try:
            while not stopped():
                hung_up.wait(0.01)  # a call in flight, ended by on_stop
            raise MatchStopped("abandoned")
        finally:
            finished.set()

    async def main() -> bool:
        with trio.move_on_after(30) as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(partial(run_game_thread, play, on_stop=hung_up.set))
                await trio.to_thread.run_sync(began.wait)
                nursery.cancel_scope.cancel()
        return scope.cancelled_caught

    assert trio.run(main) is False  # cancelled by the nursery, not by the 30 s guard
    assert hung_up.is_set() and finished.is_set()


def test_a_game_that_ends_as_it_is_cancelled_is_dropped() -> None:
    """Closing the connections may have faulted the last call: the result is not returned."""
    results: list[str] = []

    def play(stopped: Stopped) -> str:
        while not stopped():
            threading.Event().wait(0.01)
        return "finished anyway"

    async def main() -> None:
        async with trio.open_nursery() as nursery:

            async def game() -> None:
                results.append(await run_game_thread(play, on_stop=lambda: None))

            nursery.start_soon(game)
            await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert results == []
