"""The debug preset's trace writes the fault the referee judged, as ``referee faults``
lists it: an illegal answer is ``"illegal"`` in the trace, not null."""

from __future__ import annotations

import json
import random
from pathlib import Path

from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.league.match import Player, play_match
from referee.league.tracelog import TraceLog
from tests.faults.test_never_pays import Bot, at_random, uniform


def test_the_trace_names_the_judged_fault_of_each_decision(tmp_path: Path) -> None:
    for kind in ("illegal", "malformed", "late"):
        players: list[Player | None] = [Bot("tested", uniform, random.Random(1), kind, at_random), Bot("random", uniform, random.Random(2))]
        game = Game(2, Rules(), 7, game_id=f"trace-{kind}", first_dealer=0)
        trace = TraceLog.for_game(tmp_path, game.game_id, ("tested", "random"))
        result = play_match(game, players, TimeControl(move_ms=200, grace_ms=50), FaultPolicy(max_faults=10), trace=trace)
        trace.close()
        lines = [json.loads(line) for line in trace.path.read_text().splitlines()]
        judged = {fault.decision: fault.kind for fault in result.faults}
        assert judged, "faults were injected"
        assert {line["decision"]: line["fault"] for line in lines if line["fault"]} == judged
        assert all(line["fault"] is None for line in lines if line["decision"] not in judged)
