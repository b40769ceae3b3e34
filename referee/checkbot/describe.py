"""Fault evidence in words: one line saying what a bot was asked, from the request JSON
the referee stored (``FaultRecord.request``, docs/design.md §5).

Pure: reads the compact JSON written by ``referee.transport.codec.request_json`` with
the ``json`` module only (no generated code), and never raises on odd input: a field it
cannot read is left out of the description.
"""

from __future__ import annotations

import json
from typing import Any

from referee.game.cards import Rank, Suit

_RANKS = {rank.name: rank.letter for rank in Rank}
_SUITS = {suit.name: suit.letter for suit in Suit}
_DECISIONS = {"PLAY_CARD": "play a card", "CHOOSE_TRUMP": "name trump"}


def card_text(data: Any) -> str:
    """``{"rank": "ACE", "suit": "SPADES"}`` -> ``"AS"``; ``"?"`` for anything else."""
    if not isinstance(data, dict):
        return "?"
    return _RANKS.get(str(data.get("rank")), "?") + _SUITS.get(str(data.get("suit")), "?")


def action_text(data: Any) -> str:
    """An ``Action`` as JSON -> ``"AS"``, ``"trump H"``, ``"trump NT"``, ``"pass"`` (``"?"`` if unreadable)."""
    if not isinstance(data, dict):
        return "?"
    if "play" in data:
        return card_text(data["play"])
    if "pass_trick" in data:
        return "pass"
    choice = data.get("choose_trump")
    if isinstance(choice, dict):
        if choice.get("no_trump"):
            return "trump NT"
        return "trump " + _SUITS.get(str(choice.get("suit")), "?")
    return "?"


def _load(request_json: str) -> dict[str, Any] | None:
    try:
        data = json.loads(request_json)
    except (TypeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def legal_answers(request_json: str) -> list[str]:
    """The legal actions listed in a stored request, as text (``[]`` if none can be read)."""
    data = _load(request_json)
    if data is None or not isinstance(data.get("legal"), list):
        return []
    return [action_text(action) for action in data["legal"]]


def describe_request(request_json: str) -> str:
    """One line for a student: the decision asked, round, trick, trump, hand, the trick
    so far, and the time told to the bot (ms). E.g.::

        asked to play a card as seat 1 in round 2 (6 cards), trick 1, trump S;
        hand 6H KH 8D 4C; trick so far: seat 0 7C; time left 1000 ms, bank 0 ms

    Returns ``"(no request)"`` for an empty or unreadable text (startup faults)."""
    data = _load(request_json)
    if data is None:
        return "(no request)"
    view = data.get("view") if isinstance(data.get("view"), dict) else {}
    assert isinstance(view, dict)
    size = view.get("cards_dealt", view.get("hand_size", "?"))  # "hand_size" in older results files
    decision = _DECISIONS.get(str(data.get("decision")), str(data.get("decision", "?")).lower())
    parts = [f"asked to {decision} as seat {view.get('seat', 0)} in round {view.get('round_number', '?')} ({size} cards)"]
    status = view.get("status")
    seat = view.get("seat", 0)
    if isinstance(status, list) and isinstance(seat, int) and 0 <= seat < len(status) and status[seat] == "SEAT_STATUS_DOG":
        parts[0] += " on the dog's life"
    if data.get("decision") == "PLAY_CARD":
        completed = view.get("completed_tricks")
        parts.append(f"trick {len(completed) + 1 if isinstance(completed, list) else '?'} of {size}")
    state = view.get("trump_state")
    if state == "TRUMP_STATE_SUIT":
        parts.append("trump " + _SUITS.get(str(view.get("trump")), "?"))
    elif state == "TRUMP_STATE_NO_TRUMP":
        parts.append("no trump")
    else:
        parts.append("trump not named yet")
    line = ", ".join(parts)
    hand = view.get("hand")
    details = ["hand " + (" ".join(card_text(card) for card in hand) if isinstance(hand, list) and hand else "(empty)")]
    trick = view.get("current_trick")
    if isinstance(trick, dict) and isinstance(trick.get("plays"), list) and trick["plays"]:
        plays = []
        for play in trick["plays"]:
            if isinstance(play, dict):
                what = "pass" if play.get("passed") else card_text(play.get("card"))
                if play.get("face_down") and "card" not in play:
                    what = "face down"  # docs/rules.md W24
                plays.append(f"seat {play.get('seat', 0)} {what}")
        details.append("trick so far: " + " ".join(plays))
    elif data.get("decision") == "PLAY_CARD":
        details.append("you lead")
    if data.get("time_left_ms"):
        details.append(f"time left {data.get('time_left_ms')} ms, bank {data.get('bank_left_ms', 0)} ms")
    else:
        details.append("no time limit")
    return line + "; " + "; ".join(details)
