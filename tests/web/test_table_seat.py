"""A person's seat (:mod:`referee.league.human`) in the referee's own match loop, without a
browser: asked, judged and recorded like a bot; a clock only when asked for; a person who
leaves is waited for, then played by the fallback; one browser per link."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import trio

from referee.game.engine import Game
from referee.game.faults import FaultPolicy
from referee.game.rules import Rules
from referee.game.timecontrol import TimeControl
from referee.game.views import fallback_action, format_action
from referee.league.human import NO_LIMIT, People, Person, person_time
from referee.league.match import MatchResult, play_match
from referee.transport.codec import request_json, view_to_request
from referee.transport.replies import DecisionAsk, Reply

WAIT_S = 60.0  # generous: the machine is shared


class Fallback:
    """A bot in the test's process that plays the fallback move."""

    def __init__(self, name: str) -> None:
        self.name = name

    def decide(self, ask: DecisionAsk) -> Reply:
        action = fallback_action(ask.view)
        request = view_to_request(ask.view, ask.events, ask.number, ask.time_left_ms, ask.bank_left_ms)
        return Reply(action, None, "", request, format_action(action), 0.5)

    def exit_detail(self) -> str | None:
        return None


@contextmanager
def game_of(people: People, *, time: TimeControl = TimeControl(move_ms=5000), policy: FaultPolicy = FaultPolicy()) -> Iterator[Callable[[], MatchResult]]:
    """A 3-seat game with the person ``ann`` at seat 0, played on a thread as a league plays
    it (seated, the page told every move); yields a function that waits for its result."""
    game = Game(3, Rules(start_hand_size=3), seed=4, game_id="g1")
    done: list[MatchResult | BaseException] = []

    async def seat() -> None:
        async with people.seated("g1", ("ann", "b1", "b2")) as persons:
            human = persons[0]

            def moved() -> None:
                human.show(game.view(0), game.events)

            def play() -> None:
                try:
                    moved()
                    done.append(play_match(game, [human, Fallback("b1"), Fallback("b2")], time, policy, seat_time={0: human.time}, moved=moved))
                except BaseException as error:  # noqa: BLE001 - handed to the test
                    done.append(error)

            await trio.to_thread.run_sync(play)

    thread = threading.Thread(target=trio.run, args=(seat,), daemon=True)
    thread.start()

    def result() -> MatchResult:
        thread.join(WAIT_S)
        assert done, "the game did not end"
        if isinstance(done[0], BaseException):
            raise done[0]
        return done[0]

    yield result


def answer_all(people: People, person: Person, until: Callable[[], bool], choose: Callable[[dict], str] | None = None) -> int:
    """Answer every decision asked of ``person`` with its first legal action (or
    ``choose(state)``) until ``until()``; -> how many."""
    answered = 0
    give_up = time.monotonic() + WAIT_S
    while not until() and time.monotonic() < give_up:
        showing = person.showing
        if showing is not None and showing.asked is not None and person.asking == showing.asked.number:
            action = format_action(showing.asked.view.legal[0])
            if people.answer(person, showing.asked.number, action) == "ok":
                answered += 1
        time.sleep(0.005)
    return answered


def test_a_person_is_asked_judged_and_recorded_like_a_bot() -> None:
    people = People({"ann": NO_LIMIT})
    ann = people.persons()[0]
    people.opened(ann)
    with game_of(people) as result:
        answered = answer_all(people, ann, lambda: ann.showing is not None and ann.showing.view.hand == () and ann.asking is None and _over(ann))
        record = result()
    assert not record.faults
    mine = [action for action in record.actions if action.seat == 0]
    assert len(mine) == answered > 0
    assert all(action.ms is not None and action.fault is None for action in mine), "each one a measured answer of the person"


def _over(person: Person) -> bool:
    return person.showing is not None and any(type(event).__name__ == "GameEnded" for event in person.showing.events)


def test_an_illegal_answer_is_a_fault_and_the_fallback_is_played() -> None:
    people = People({"ann": NO_LIMIT})
    ann = people.persons()[0]
    people.opened(ann)
    with game_of(people, policy=FaultPolicy(max_faults=10)) as result:
        give_up = time.monotonic() + WAIT_S
        while ann.asking is None and time.monotonic() < give_up:
            time.sleep(0.005)
        asked = ann.showing.asked  # type: ignore[union-attr]
        assert asked is not None
        held = {str(card) for card in asked.view.hand}
        legal = {format_action(action) for action in asked.view.legal}
        stranger = next(text for text in ("AS", "KH", "2C", "3D", "9S") if text not in held)
        assert people.answer(ann, asked.number + 1, "AS") == "stale", "an answer to another decision is not taken"
        assert people.answer(ann, asked.number, "not a card") == "bad"
        assert people.answer(ann, asked.number, stranger) == "ok", "the match judges it, as a bot's"
        assert stranger not in legal
        answer_all(people, ann, lambda: _over(ann))
        record = result()
    assert [(fault.kind, fault.seat, fault.decision) for fault in record.faults] == [("illegal", 0, asked.number)]
    assert record.faults[0].request == request_json(view_to_request(asked.view, asked.events, asked.number, 0, 0)), (
        "the evidence is the request a bot at the seat would have been sent"
    )
    assert record.actions[asked.number].action == format_action(fallback_action(asked.view))


def test_with_a_clock_a_person_who_does_not_answer_times_out_and_forfeits() -> None:
    people = People({"ann": person_time(TimeControl(move_ms=5000, grace_ms=10), 30)})
    ann = people.persons()[0]
    people.opened(ann)
    with game_of(people, policy=FaultPolicy(max_faults=2)) as result:
        record = result()
    kinds = [fault.kind for fault in record.faults]
    assert kinds == ["timeout", "timeout"], kinds
    assert "no answer within" in record.faults[0].detail
    assert (record.faults[1].decision, 0) in record.forfeits, "max_faults reached: the seat forfeits, as a bot's"


def test_without_a_clock_a_person_is_waited_for_while_their_page_is_open() -> None:
    people = People({"ann": NO_LIMIT}, away_s=0.0)
    ann = people.persons()[0]
    people.opened(ann)
    with game_of(people, time=TimeControl(move_ms=1, grace_ms=0)) as result:  # the bots' limit is not the person's
        give_up = time.monotonic() + WAIT_S
        while ann.asking is None and time.monotonic() < give_up:
            time.sleep(0.005)
        time.sleep(0.3)  # 300 times the bots' limit
        answer_all(people, ann, lambda: _over(ann))
        record = result()
    assert not [fault for fault in record.faults if fault.seat == 0]


def test_a_person_who_leaves_is_played_by_the_fallback_after_the_grace_and_the_game_ends() -> None:
    people = People({"ann": NO_LIMIT}, away_s=0.2)
    ann = people.persons()[0]
    people.opened(ann)
    with game_of(people) as result:
        give_up = time.monotonic() + WAIT_S
        while ann.asking is None and time.monotonic() < give_up:
            time.sleep(0.005)
        first = ann.asking
        people.closed(ann)  # the page is closed
        record = result()
    assert [(fault.kind, fault.seat, fault.decision) for fault in record.faults] == [("crash", 0, first)]
    assert "ann left the table" in record.faults[0].detail and "no page" in record.faults[0].detail
    assert any(seat == 0 for _, seat in record.forfeits), "the seat forfeits: a person not there never profits"
    later = [action for action in record.actions[first + 1 :] if action.seat == 0]
    assert later and all(action.ms is None for action in later), "the referee plays the seat to the end"
    assert ann.showing is not None and "You left the table" in (ann.showing.note or "")


def test_a_link_opens_in_the_first_browser_only() -> None:
    people = People({"ann": NO_LIMIT, "bob": NO_LIMIT})
    ann, bob = people.persons()
    assert people.by_secret(ann.secret) is ann and people.by_secret(bob.secret) is bob
    assert people.by_secret(ann.secret[:-1] + ("A" if ann.secret[-1] != "A" else "B")) is None
    assert people.by_secret("") is None
    cookie = people.claim(ann, None)
    assert cookie is not None
    assert people.claim(ann, cookie) == cookie, "the same browser again (a reload)"
    assert people.claim(ann, None) is None, "another browser: nothing"
    assert people.claim(ann, "forged") is None
    assert people.holds(ann, cookie) and not people.holds(ann, None) and not people.holds(bob, cookie)


def test_a_person_has_no_clock_unless_given_one() -> None:
    league = TimeControl(move_ms=800, grace_ms=50, bank_ms=200)
    assert person_time(league, None).unlimited
    assert person_time(league, 30_000) == TimeControl(move_ms=30_000, grace_ms=50, bank_ms=200)
    with pytest.raises(Exception, match="away-s"):
        People({"ann": NO_LIMIT}, away_s=-1)
