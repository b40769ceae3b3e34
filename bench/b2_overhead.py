"""B2 referee overhead: the real referee (``BotPool`` + ``play_fixture``: engine, match,
BotClient, GameOver, the game record) playing one game at a time against 4 instant bots,
in µs of wall time per decision, divided by the floor measured in the same repetition
(B1's sync unary ``Decide`` rotating over 4 processes of the same bot). Also the
referee's own CPU per decision: the game's thread outside its gRPC calls (engine, match,
request, judging) plus the trio thread (pool, fixtures, GameOver, records), next to the
CPU spent inside the gRPC calls and the whole process's; and the same per-decision code
(``play_match`` with ``BotClient.decide_blocking``) isolated: games whose calls are
answered in-process (no socket, no other process running in between), the answer's own
CPU left out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import common
from common import Figure

GAMES = 16
FLOOR_CALLS = 800


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0])
    games = 2 if args.quick else GAMES
    floor_calls = 200 if args.quick else FLOOR_CALLS

    import grpc
    import trio

    from fixtures import instant_bots, league_spec, realistic_request
    import referee.league.run
    from referee._proto.knockout_whist.v1 import bot_pb2 as pb
    from referee._proto.knockout_whist.v1 import bot_pb2_grpc as pb_grpc
    from referee.league.pool import BotPool
    from referee.league.run import play_fixture
    from referee.schedule.make import make_fixtures
    from referee.transport.client import CHANNEL_OPTIONS

    game_cpu = [0.0]  # the games' threads, whole
    call_cpu = [0.0]  # the games' threads inside the Decide calls

    def timed_game(play_match: Callable[..., Any]) -> Callable[..., Any]:
        def play(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time()
            try:
                return play_match(*args, **kwargs)
            finally:
                game_cpu[0] += time.thread_time() - began
        return play

    from referee.transport.client import BotClient

    open_client = BotClient.__init__

    def timed_client(self: Any, *args: Any, **kwargs: Any) -> None:
        open_client(self, *args, **kwargs)
        decide = self._decide  # the Decide call as a game makes it

        def timed_decide(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time()
            try:
                return decide(*args, **kwargs)
            finally:
                if threading.current_thread() is not threading.main_thread():
                    call_cpu[0] += time.thread_time() - began

        self._decide = timed_decide

    referee.league.run.play_match = timed_game(referee.league.run.play_match)  # type: ignore[assignment]
    BotClient.__init__ = timed_client  # type: ignore[method-assign]

    from referee.game.engine import Game
    from referee.league.match import play_match

    class LocalPlayer:
        """A seat whose Decide call is answered in this thread: the bot's first legal action."""

        name = "local"

        def __init__(self) -> None:
            self.client = BotClient("unix:/nonexistent/kws-b2.sock", "local")  # never dialled
            self.client._decide = timed_answer(lambda request, timeout: request.legal[0])
            self.decide = self.client.decide_blocking

        def exit_detail(self) -> None:
            return None

    def timed_answer(answer: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time()
            try:
                return answer(*args, **kwargs)
            finally:
                call_cpu[0] += time.thread_time() - began
        return timed

    local_players = [LocalPlayer() for _ in range(4)]

    def isolated(seeds: range) -> float:
        """Referee CPU µs per decision of ``play_match`` with in-process answers."""
        call_cpu[0] = 0.0
        decisions = 0
        began = time.thread_time()
        for seed in seeds:
            game = Game(4, spec.rules, seed, game_id=f"iso-{seed}")
            decisions += len(play_match(game, local_players, spec.time, spec.faults).actions)
        return (time.thread_time() - began - call_cpu[0]) / decisions * 1e6

    names = ["a", "b", "c", "d"]
    fixtures = make_fixtures(names, 4, deals=100, seed=7)
    request = realistic_request()
    per_decision: list[float] = []
    floor: list[float] = []
    thread_cpu: list[float] = []
    inside_calls: list[float] = []
    isolated_cpu: list[float] = []
    process_cpu: list[float] = []
    decisions_per_game: list[float] = []
    with common.temp_dir("kws-b2-") as tmp:
        spec = league_spec(names, tmp / "league", mode=args.sandbox, concurrency=1)
        with instant_bots(4, tmp / "floor", args.sandbox) as bots:
            channels = [grpc.insecure_channel(bot.address, options=CHANNEL_OPTIONS) for bot in bots]
            stubs = [pb_grpc.KnockoutWhistBotStub(channel) for channel in channels]
            for stub in stubs:
                stub.Hello(pb.HelloRequest(protocol_major=1), timeout=30, wait_for_ready=True)

            def measure_floor(calls: int) -> float:
                began = time.perf_counter()
                for index in range(calls):
                    stubs[index % 4].Decide(request, timeout=1.1)
                return (time.perf_counter() - began) / calls * 1e6

            async def referee() -> None:
                upcoming = iter(fixtures)
                async with BotPool(spec.bots, run_dir=spec.run_dir, sandbox=spec.sandbox, time=spec.time, max_restarts=3) as pool:
                    await play_fixture(spec, pool, next(upcoming))  # starts the 4 bot processes
                    measure_floor(100)
                    isolated(range(10**6, 10**6 + 4))
                    for rep in range(args.reps):
                        isolated_cpu.append(isolated(range(rep * games * 4, (rep + 1) * games * 4)))
                        floor.append(measure_floor(floor_calls))
                        decisions = 0
                        game_cpu[0] = call_cpu[0] = 0.0
                        wall, thread, process = time.perf_counter(), time.thread_time(), time.process_time()
                        for _ in range(games):
                            record = await play_fixture(spec, pool, next(upcoming))
                            decisions += len(record.actions)
                            assert not record.faults, record.faults[0]
                        wall = time.perf_counter() - wall
                        thread = time.thread_time() - thread
                        process = time.process_time() - process
                        per_decision.append(wall / decisions * 1e6)
                        own = thread + game_cpu[0] - call_cpu[0]  # trio thread + games' threads outside the calls
                        thread_cpu.append(own / decisions * 1e6)
                        inside_calls.append(call_cpu[0] / decisions * 1e6)
                        process_cpu.append(process / decisions * 1e6)
                        decisions_per_game.append(decisions / games)

            try:
                trio.run(referee)
            finally:
                for channel in channels:
                    channel.close()
    figures = [
        Figure("referee_us", "referee, one game at a time, wall per decision", "µs", per_decision),
        Figure("floor_us", "floor: sync unary Decide rotating over 4 (same run)", "µs", floor),
        Figure("overhead", "referee ÷ rotating floor", "×", common.ratio_values(per_decision, floor)),
        Figure("thread_cpu_us", "referee's own CPU per decision (game thread outside its calls + trio thread)", "µs", thread_cpu),
        Figure("isolated_cpu_us", "the same per-decision code isolated (answers in-process, their CPU left out)", "µs", isolated_cpu),
        Figure("call_cpu_us", "CPU per decision inside the gRPC Decide call (game thread)", "µs", inside_calls),
        Figure("process_cpu_us", "referee CPU per decision, whole process (with gRPC threads)", "µs", process_cpu),
        Figure("decisions_per_game", "decisions per game", "", decisions_per_game),
    ]
    common.write_json(args.json, "B2 referee overhead", figures, games_per_rep=games, sandbox=args.sandbox)


if __name__ == "__main__":
    main()
