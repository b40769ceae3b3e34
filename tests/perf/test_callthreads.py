"""CallThreads: blocking calls on reused threads, completed into trio (no timing assertions)."""

from __future__ import annotations

import threading

import pytest
import trio

from referee.transport.callthreads import CallThreads, Finished


def test_a_call_returns_its_value_and_when_it_ran() -> None:
    threads = CallThreads("t")

    async def main() -> Finished[int]:
        return await threads.run(lambda: 6 * 7)

    done = trio.run(main)
    threads.close()
    assert done.value == 42 and done.error is None
    assert done.started <= done.ended and done.ms >= 0.0


def test_an_exception_is_handed_over_not_raised() -> None:
    threads = CallThreads("t")

    def boom() -> int:
        raise ValueError("closed channel")

    done = trio.run(lambda: threads.run(boom))
    threads.close()
    assert done.value is None and isinstance(done.error, ValueError) and str(done.error) == "closed channel"


def test_sequential_calls_reuse_one_thread() -> None:
    threads = CallThreads("reuse")

    async def main() -> set[int]:
        idents = set()
        for _ in range(20):
            done = await threads.run(threading.get_ident)
            assert done.value is not None
            idents.add(done.value)
        return idents

    idents = trio.run(main)
    threads.close()
    assert len(idents) == 1 and threading.get_ident() not in idents


def test_concurrent_calls_run_at_once_on_their_own_threads() -> None:
    threads = CallThreads("together")
    barrier = threading.Barrier(3, timeout=60)  # each call waits for the other two

    async def main() -> list[int]:
        results: list[int] = []

        async def one() -> None:
            done = await threads.run(lambda: (barrier.wait(), threading.get_ident())[1])
            assert done.error is None and done.value is not None
            results.append(done.value)

        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(one)
        return results

    idents = trio.run(main)
    threads.close()
    assert len(set(idents)) == 3


def test_a_cancelled_wait_abandons_the_call_and_the_next_call_works() -> None:
    threads = CallThreads("cancel")
    release = threading.Event()

    async def main() -> tuple[bool, Finished[str]]:
        with trio.move_on_after(0.05) as scope:
            await threads.run(lambda: release.wait(60))
        release.set()  # the abandoned call ends on its own
        after = await threads.run(lambda: "next")
        return scope.cancelled_caught, after

    cancelled, after = trio.run(main)
    threads.close()
    assert cancelled and after.value == "next"


def test_close_ends_idle_threads_and_later_calls_still_work() -> None:
    threads = CallThreads("closing")
    trio.run(lambda: threads.run(lambda: None))
    mine = [thread for thread in threading.enumerate() if thread.name == "grpc-call closing"]
    assert len(mine) == 1
    threads.close()
    threads.close()  # idempotent
    mine[0].join(60)
    assert not mine[0].is_alive()
    done = trio.run(lambda: threads.run(lambda: "after close"))
    assert done.value == "after close"


@pytest.mark.parametrize("calls", [1, 5])
def test_idle_threads_hold_no_call(calls: int) -> None:
    import gc
    import weakref

    class Payload:
        pass

    threads = CallThreads("hold")
    refs: list[weakref.ref[Payload]] = []

    async def main() -> None:
        for _ in range(calls):
            payload = Payload()
            refs.append(weakref.ref(payload))
            await threads.run(lambda payload=payload: payload)  # type: ignore[misc]
            del payload

    trio.run(main)
    gc.collect()
    threads.close()
    assert all(ref() is None for ref in refs)
