"""A person at the table (issue 39): ``referee play you heuristic random`` and a league's
``human = true`` seats, played in headless Chromium (Debian's, as the site's tests) against
the sample bots run by the referee as real processes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_referee, write_config
from tests.web.table_helpers import (
    WAIT_S,
    Driver,
    Wire,
    hidden_card_problems,
    person_actions,
    play_until_exit,
    records,
    seat_links,
)
from tests.web.test_browser import Referee

pytestmark = pytest.mark.browser

SAMPLES = REPO / "sample_bots" / "python"
README_IMAGE = REPO / "docs" / "img" / "web-table.png"  # KW_README_IMAGES=1 keeps the README's picture from this test


def start_play(results: Path, *bots: str, args: tuple[str, ...] = ()) -> Referee:
    return Referee.start("play", *bots, "--no-browser", "--results", str(results), *args)


def test_a_person_plays_a_whole_game_by_clicking_and_it_reruns_identically(browser: Any, tmp_path: Path) -> None:
    results = tmp_path / "play.sqlite"
    referee = start_play(results, "you", "heuristic", "random", args=("--seed", "3"))
    try:
        link = seat_links(referee, 1)["you"]
        assert link.startswith("http://127.0.0.1:"), "this machine only, unless told otherwise"
        assert "(no time limit)" in "".join(referee.lines)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(link)
        driver = Driver(page, seed=5)
        shot = False
        while referee.process.poll() is None:
            if not shot and page.evaluate("() => (document.querySelector('[data-testid=round]') || {}).textContent || ''").startswith("Round 2"):
                if page.locator("#trick .play").count() and page.locator("#hand button:not([disabled])").count():
                    page.screenshot(path=tmp_path / "table.png", animations="disabled")
                    shot = True
            if not driver.act():
                page.wait_for_timeout(50)
        assert referee.process.wait(timeout=60) == 0, "".join(referee.lines)
        assert "Game over" in page.inner_text("[data-testid=prompt]")
        assert f"referee replay {results} play-1 --seat 0" in page.inner_text("[data-testid=prompt]")
    finally:
        referee.stop()
    (game,) = records(results)
    seat = game.seats.index("you")
    assert person_actions(game, seat) == driver.played, "every click recorded as the person's answer, in order"
    assert not game.faults
    assert len(driver.played) >= 5
    done = run_referee("replay", str(results), "play-1", "--rerun")
    assert done.returncode == 0 and "rerun identical" in done.stdout, done.stdout + done.stderr
    sent = run_referee("replay", str(results), "play-1", "--seat", str(seat))
    assert sent.returncode == 0 and f"what you (seat {seat})" in sent.stdout
    assert sent.stdout.count("time:    no limit") == len(driver.played), "a person has no clock unless asked"
    assert shot, "a moment of round 2 with a trick on the table"
    if os.environ.get("KW_README_IMAGES") == "1":
        shutil.copyfile(tmp_path / "table.png", README_IMAGE)


def test_a_person_plays_a_whole_game_by_keyboard_only(browser: Any, tmp_path: Path) -> None:
    results = tmp_path / "keys.sqlite"
    referee = start_play(results, "you", "heuristic", "random", args=("--seed", "8", "--rule", "start_hand_size=4"))
    try:
        link = seat_links(referee, 1)["you"]
        page = browser.new_page()
        page.goto(link)
        page.mouse.move(0, 0)
        driver = Driver(page, seed=2, keyboard=True)
        play_until_exit(referee, [driver])
    finally:
        referee.stop()
    (game,) = records(results)
    seat = game.seats.index("you")
    assert person_actions(game, seat) == driver.played, "every key press recorded as the person's answer"
    assert not game.faults
    assert len(driver.played) >= 3 and driver.arrows > 0, "cards chosen with the arrow keys, played with Enter"


def test_the_page_receives_no_card_its_seat_may_not_see(browser: Any, tmp_path: Path) -> None:
    """Every HTTP body and every server-sent event the page receives during three games,
    the dog playing face down (``dog_play = "first_trick"``; two cards in round 1, so
    someone takes no trick): no card of another seat's hand, no face-down card before its
    trick is complete."""
    results = tmp_path / "hidden.sqlite"
    rules = ("--rule", "dog_play=first_trick", "--rule", "start_hand_size=2")
    referee = start_play(results, "you", "heuristic", "random", args=("--games", "3", "--seed", "4", *rules))
    try:
        link = seat_links(referee, 1)["you"]
        page = browser.new_page()
        wire = Wire.watch(page)
        page.goto(link)
        play_until_exit(referee, [Driver(page, seed=9)])
    finally:
        referee.stop()
    games = records(results)
    assert len(games) == 3
    problems = hidden_card_problems(wire, games, lambda record: record.seats.index("you"))
    assert not problems, "\n".join(problems[:10])
    states = wire.states()
    assert len(states) >= 3 * 5, "every change of the table reached the page as an event"
    face_down = [
        play for state in states if not state.get("waiting") and state["trick"]
        for play in state["trick"]["plays"] if play.get("face_down") and play["seat"] != state["seat"]
    ]  # fmt: skip
    assert face_down and all("card" not in play for play in face_down), "a dog's card face down, and the page never told it"
    base = link.rsplit("/table/", 1)[0]
    known = {link, link + "/events", link + "/answer", *(f"{base}/static/{name}" for name in ("style.css", "table.css", "table.js"))}
    assert set(wire.requests) <= known, "the page asks for nothing else: " + str(set(wire.requests) - known)


def test_two_people_in_one_game_each_see_only_their_own_hand(browser: Any, tmp_path: Path) -> None:
    results = tmp_path / "two.sqlite"
    referee = start_play(results, "human:ann", "human:bob", "heuristic", args=("--seed", "6"))
    contexts = []
    try:
        links = seat_links(referee, 2)
        assert set(links) == {"ann", "bob"} and links["ann"] != links["bob"]
        pages, wires = {}, {}
        for name in ("ann", "bob"):
            context = browser.new_context()
            contexts.append(context)
            pages[name] = context.new_page()
            wires[name] = Wire.watch(pages[name])
            pages[name].goto(links[name])
        stranger = browser.new_context()
        contexts.append(stranger)
        snoop = stranger.new_page()
        secret = links["ann"].rsplit("/", 1)[1]
        tampered = links["ann"][: -len(secret)] + secret[:-1] + ("x" if secret[-1] != "x" else "y")
        for address in (tampered, links["ann"], links["bob"], tampered + "/events", links["ann"] + "/events"):
            response = snoop.goto(address)
            assert response is not None and response.status == 404, address
            assert snoop.inner_text("body") == "nothing here", "a wrong or reused link shows nothing"
        answer = stranger.request.post(links["ann"] + "/answer", data={"decision": 0, "action": "AS"})
        assert answer.status == 404
        drivers = [Driver(pages["ann"], seed=1), Driver(pages["bob"], seed=2)]
        play_until_exit(referee, drivers)
        assert "Game over" in pages["ann"].inner_text("[data-testid=prompt]")
    finally:
        for context in contexts:
            context.close()
        referee.stop()
    (game,) = records(results)
    for name, driver in zip(("ann", "bob"), drivers):
        seat = game.seats.index(name)
        assert person_actions(game, seat) == driver.played
        problems = hidden_card_problems(wires[name], [game], lambda record, name=name: record.seats.index(name))
        assert not problems, f"{name}: " + "\n".join(problems[:10])
        shown = [(state["round"], set(state["hand"])) for state in wires[name].states() if not state.get("waiting")]
        dealt = {number: set(summary["hands"][seat]) for number, summary in enumerate(game.rounds, start=1)}
        assert shown and all(hand <= dealt[number] for number, hand in shown), "only their own hand, round by round"


def test_a_person_who_closes_the_page_is_played_by_the_fallback_and_the_league_goes_on(browser: Any, tmp_path: Path) -> None:
    """A league of ann (a person) and two sample bots at tables of 3: ann plays a few cards
    and closes the page; after the grace (--away-s 3) the referee plays her seat to the end
    of that game and does not wait for her in the next ones; the league completes."""
    results = tmp_path / "people.sqlite"
    config = write_config(tmp_path / "people.toml", "\n".join([
        "[league]", 'name = "people"', "seed = 5", "table_size = 3", "concurrency = 1", f'results = "{results}"',
        "[time]", "move_ms = 2000", "startup_ms = 60000",
        "[[bots]]", 'name = "ann"', "human = true",
        "[[bots]]", 'name = "heuristic"', f'command = ["python", "{SAMPLES / "heuristic_bot.py"}"]',
        "[[bots]]", 'name = "random"', f'command = ["python", "{SAMPLES / "random_bot.py"}"]',
    ]) + "\n")  # fmt: skip
    referee = Referee.start("run", str(config), "--no-live", "--away-s", "3")
    try:
        link = seat_links(referee, 1)["ann"]
        assert link.startswith("http://127.0.0.1:"), "the league's site listens on this machine only"
        context = browser.new_context()
        page = context.new_page()
        page.goto(link)
        driver = Driver(page, seed=3)
        while len(driver.played) < 3:
            assert referee.process.poll() is None, "".join(referee.lines)
            if not driver.act():
                page.wait_for_timeout(50)
        context.close()  # the page is closed mid-game
        assert referee.process.wait(timeout=WAIT_S) == 0, "".join(referee.lines)
    finally:
        referee.stop()
    games = records(results)
    assert len(games) == 3, "the league went on to its end"
    terminal = "".join(referee.lines)
    assert "waiting for ann to open the link" in terminal
    first = next(game for game in games if game.fixture == 0)
    for game in games:
        seat = game.seats.index("ann")
        faults = [fault for fault in game.faults if fault.seat == seat]
        assert [fault.kind for fault in faults] == ["crash"], (game.game_id, faults)
        assert "ann left the table: no page open for" in faults[0].detail
        assert game.forfeited[seat], "the seat forfeits: a person not there never profits from the fallback"
        after = [action for action in game.actions[faults[0].decision + 1 :] if action.seat == seat]
        assert all(action.ms is None for action in after), "the referee plays the seat to the end"
    assert person_actions(first, first.seats.index("ann")) == driver.played, "her three answers are kept"


def test_the_table_fits_a_phone_and_a_projector_and_follows_reduced_motion(browser: Any, tmp_path: Path) -> None:
    results = tmp_path / "screens.sqlite"
    referee = start_play(results, "you", "heuristic", "random", args=("--seed", "2"))
    try:
        link = seat_links(referee, 1)["you"]
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(link + "?tv=1")
        page.wait_for_selector("#hand button:not([disabled])", timeout=WAIT_S * 1000)
        for part in ("[data-testid=hand]", "[data-testid=trick]", "[data-testid=prompt]", "#seats", "[data-testid=trump]"):
            box = page.locator(part).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 720 and box["x"] + box["width"] <= 1280, f"{part} off a 1280x720 projector: {box}"
        page.screenshot(path=tmp_path / "projector.png")
        page.set_viewport_size({"width": 375, "height": 667})
        page.wait_for_timeout(100)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, "nothing wider than a phone"
        for button in page.locator("#hand button").all():
            box = button.bounding_box()
            assert box is not None and box["height"] >= 40 and box["x"] >= 0 and box["x"] + box["width"] <= 375, "cards a thumb can press"
        page.screenshot(path=tmp_path / "phone.png", full_page=True)
        animation = "() => Array.from(document.querySelectorAll('.play'), (node) => getComputedStyle(node).animationName)"
        driver = Driver(page, seed=4)
        moving: set[str] = set()
        while not moving - {"none"} and referee.process.poll() is None:
            driver.act() or page.wait_for_timeout(20)
            page.evaluate("() => document.querySelectorAll('.play').forEach((node) => node.classList.add('new'))")
            moving |= set(page.evaluate(animation))
        assert "table-card-in" in moving, "a card played slides in"
        page.emulate_media(reduced_motion="reduce")
        page.evaluate("() => document.querySelectorAll('.play').forEach((node) => node.classList.add('new'))")
        assert set(page.evaluate(animation)) <= {"none"}, "no motion for a reader who prefers none"
        play_until_exit(referee, [driver])
    finally:
        referee.stop()
