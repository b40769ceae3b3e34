"""Protocol additions (docs/protocol.md): ``trick_number`` and ``to_play`` in the view,
``last_decision_ms`` in a request, ``forfeited`` and ``faults`` in GameSummary."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.game.views import DecisionKind, SeatStatus, fallback_action
from referee.league.match import play_match
from referee.transport.codec import request_to_view, view_to_request
from referee.transport.replies import DecisionAsk, Reply


@dataclass
class Timed:
    """A match Player answering the fallback move, 10 ms more slowly each time; it keeps
    the ``last_decision_ms`` it was told."""

    name: str = "timed"
    told: list[float | None] = field(default_factory=list)

    def decide(self, ask: DecisionAsk) -> Reply:
        self.told.append(ask.last_decision_ms)
        return Reply(fallback_action(ask.view), None, "", None, "", ms=10.0 * len(self.told))

    def exit_detail(self) -> str | None:
        return None


def test_the_match_tells_each_seat_its_previous_decisions_time() -> None:
    players = [Timed(), Timed(), Timed()]
    play_match(Game(3, Rules(), 5, game_id="g"), players, TimeControl(move_ms=1000), FaultPolicy())
    for player in players:
        assert player.told[0] is None
        assert player.told[1:] == [10.0 * n for n in range(1, len(player.told))]


def test_last_decision_ms_is_whole_ms_and_unset_at_first() -> None:
    game = Game(3, Rules(), 5, game_id="g")
    view = game.view(game.to_act or 0)
    assert not view_to_request(view, [], 0, 100, 0).HasField("last_decision_ms")
    assert view_to_request(view, [], 0, 100, 0, 12.6).last_decision_ms == 13


def test_trick_number_and_the_seats_still_to_play() -> None:
    """A trick's seats in order, the asked seat first; 0 and none while trump is chosen;
    a dog that has played is left out of later tricks (it keeps status DOG)."""
    dog_skipped = 0
    for seed in range(12):
        game = Game(4, Rules(), seed, game_id="g")
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            request = view_to_request(view, [], 0, 0, 0)
            if view.decision is DecisionKind.CHOOSE_TRUMP:
                assert (request.view.trick_number, list(request.view.to_play)) == (0, [])
            else:
                assert view.current_trick is not None
                assert request.view.trick_number == len(view.completed_tricks) + 1
                assert request.view.to_play[0] == seat
                assert not {play.seat for play in view.current_trick.plays} & set(request.view.to_play)
                played_dogs = {
                    play.seat
                    for trick in view.completed_tricks
                    for play in trick.plays
                    if play.card is not None and view.status[play.seat] is SeatStatus.DOG
                }
                assert not played_dogs & set(request.view.to_play)
                dog_skipped += bool(played_dogs)
            assert request_to_view(request)[0].to_play == view.to_play
            game.apply(seat, view.legal[0])  # a dog plays its card at once (the fallback would pass)
    assert dog_skipped > 0, "no dog had played: pick other seeds"


def test_game_summary_carries_forfeits_and_faults() -> None:
    summary = pb.GameSummary(game_id="g", seat=1, placements=[1, 3, 2], winner=0, forfeited=[False, True, False], faults=[0, 3, 0])
    again = pb.GameSummary.FromString(summary.SerializeToString())
    assert (list(again.forfeited), list(again.faults)) == ([False, True, False], [0, 3, 0])
