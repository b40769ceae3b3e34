"""Helpers of the table tests: a person's page driven by Playwright (clicks or keys), what it
receives on the wire (every HTTP body and every server-sent event, read from Chromium's own
network log), and which cards a seat may know at each moment of a stored game."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.game.cards import Card
from referee.game.gamelog import rerun
from referee.game.records import GameRecord
from referee.game.views import CardPlayed, CardRevealed, RoundStarted
from referee.results.store import ResultsStore
from tests.web.test_browser import Referee

WAIT_S = 300.0  # generous: the machine is shared; a game is a few seconds
CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")
CHOICES = "#hand button:not([disabled]), #prompt button:not([disabled])"
HAS_CHOICE = f"() => document.querySelectorAll({json.dumps(CHOICES)}).length"


def seat_links(referee: Referee, count: int, timeout_s: float = 180) -> dict[str, str]:
    """name -> link of the people's seats the referee printed (``NAME: URL`` from ``referee
    play``, ``NAME's seat: URL`` from ``referee run``)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = {}
        for line in list(referee.lines):
            match = re.match(r"^(\S+?)(?:'s seat)?: (http://\S+/table/\S+)", line)
            if match:
                found[match.group(1)] = match.group(2)
        if len(found) >= count:
            return found
        if referee.process.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError("no seat links:\n" + "".join(referee.lines))


@dataclass
class Wire:
    """What one page receives: every response (read once the game is over) and every
    server-sent event and WebSocket frame, in order, from Chromium's network log (CDP)."""

    page: Any
    responses: list[Any] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @classmethod
    def watch(cls, page: Any) -> Wire:
        wire = cls(page)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.eventSourceMessageReceived", lambda event: wire.events.append(event["data"]))
        cdp.on("Network.webSocketFrameReceived", lambda event: wire.frames.append(event["response"]["payloadData"]))
        page.on("request", lambda request: wire.requests.append(request.url))
        page.on("response", lambda response: wire.responses.append(response))
        return wire

    def bodies(self) -> list[tuple[str, int, str]]:
        """(url, status, body) of every response but the event stream's."""
        found = []
        for response in self.responses:
            if "text/event-stream" in (response.headers.get("content-type") or ""):
                continue
            try:
                text = response.text()
            except Exception:  # noqa: BLE001 - a body the browser dropped: none to read
                text = ""
            found.append((response.url, response.status, text))
        return found

    def states(self) -> list[dict[str, Any]]:
        return [json.loads(data) for data in self.events]


class Driver:
    """Plays a person's page: ``policy`` picks among the enabled choices (buttons, in page
    order) by index; by keyboard only, it moves the focus with the arrow keys (or presses a
    suit's letter) and presses Enter. ``played`` lists every action given, in order."""

    def __init__(self, page: Any, *, seed: int = 1, keyboard: bool = False) -> None:
        self.page = page
        self.keyboard = keyboard
        self.random = random.Random(seed)
        self.played: list[str] = []
        self.arrows = 0

    def act(self) -> bool:
        """Answer the decision shown, if any; -> whether one was."""
        actions = self.page.evaluate(f"() => Array.from(document.querySelectorAll({json.dumps(CHOICES)}), (node) => node.dataset.action)")
        if not actions:
            return False
        pick = self.random.randrange(len(actions))
        if not self.keyboard:
            self.page.locator(CHOICES).nth(pick).click()
            self.played.append(actions[pick])
            return True
        focused = self.page.evaluate("() => document.activeElement && document.activeElement.dataset.action")
        if focused not in actions:
            return False  # the page has not yet moved the focus to the choices
        if actions[0].startswith("trump ") and self.random.random() < 0.5:
            self.page.keyboard.press(actions[pick].split()[1].lower())  # S H D C name trump
            self.played.append(actions[pick])
            return True
        for _ in range((pick - actions.index(focused)) % len(actions)):
            self.page.keyboard.press("ArrowRight")
            self.arrows += 1
        chosen = self.page.evaluate("() => document.activeElement.dataset.action")
        self.page.keyboard.press("Enter")
        self.played.append(chosen)
        return True


def play_until_exit(referee: Referee, drivers: Sequence[Driver], *, timeout_s: float = WAIT_S) -> None:
    """Answer every decision on every page until the referee exits (its games are over)."""
    deadline = time.monotonic() + timeout_s
    while referee.process.poll() is None:
        assert time.monotonic() < deadline, "the games did not end:\n" + "".join(referee.lines[-20:])
        acted = False
        for driver in drivers:
            try:
                acted = driver.act() or acted
            except Exception as error:  # noqa: BLE001 - the page was redrawn under the click: look again
                if "detached" not in str(error) and "not attached" not in str(error) and "Timeout" not in str(error):
                    raise
        if not acted:
            time.sleep(0.05)
    assert referee.process.wait(timeout=60) == 0, "".join(referee.lines)


def records(results: Path) -> list[GameRecord]:
    with ResultsStore.open_existing(results) as store:
        return list(store.records())


def allowed_cards(record: GameRecord, seat: int) -> Callable[[int], set[str]]:
    """For game ``record``: the cards ``seat`` may know once ``seen`` public events have
    happened: its own hands as dealt in the rounds dealt by then, the turn-up, and every
    card played face up or turned up by then (docs/design.md §3, docs/rules.md W24)."""
    game = rerun(record)
    events = game.events
    hands = {number: {str(card) for card in summary["hands"][seat]} for number, summary in enumerate(record.rounds, start=1) if summary.get("hands")}

    def allowed(seen: int) -> set[str]:
        cards: set[str] = set()
        for event in events[:seen]:
            if isinstance(event, RoundStarted):
                cards |= hands.get(event.round_number, set())
                if event.turn_up is not None:
                    cards.add(str(event.turn_up))
            elif isinstance(event, (CardPlayed, CardRevealed)) and isinstance(event.card, Card):
                cards.add(str(event.card))
        return cards

    return allowed


def hidden_card_problems(wire: Wire, games: Sequence[GameRecord], seat_of: Callable[[GameRecord], int]) -> list[str]:
    """Every card a page received that its seat could not know at that moment: in every
    server-sent state (judged at its ``seen`` count of public events), and any card at all
    in the other responses (the page, its script and style, the answers' replies)."""
    problems = []
    oracle = {record.game_id: allowed_cards(record, seat_of(record)) for record in games}
    for data in wire.events:
        state = json.loads(data)
        if state.get("waiting"):
            assert not CARD.findall(data), data
            continue
        assert "seen" in state and state["game"] in oracle, data
        may = oracle[state["game"]](state["seen"])
        extra = set(CARD.findall(data)) - may
        if extra:
            problems.append(f"{state['game']} at event {state['seen']}: {sorted(extra)} in {data[:300]}")
    for url, status, body in wire.bodies():
        if CARD.findall(body) or re.search(r"(10|[2-9JQKA])[♠♥♦♣]", body):
            problems.append(f"{url} ({status}): {sorted(set(CARD.findall(body)))}")
    problems += [f"a WebSocket frame: {frame[:200]}" for frame in wire.frames]
    return problems


def person_actions(record: GameRecord, seat: int) -> list[str]:
    """The actions the person gave at ``seat`` (answers without a fault; not the referee's moves)."""
    return [action.action for action in record.actions if action.seat == seat and action.ms is not None and action.fault is None]
