"""Fault evidence in words: one line saying what a bot was asked, from the request JSON
the referee stored (``FaultRecord.request``, docs/design.md §5), and what happened in the
game's terms (:func:`fault_in_words`) for the pages students read.

Pure: reads the compact JSON written by ``referee.transport.codec.request_json`` with
the ``json`` module only (no generated code), and never raises on odd input: a field it
cannot read is left out of the description (never a ``?`` placeholder).
"""

from __future__ import annotations

import json
import re
from typing import Any

from referee.game.cards import Rank, Suit
from referee.game.records import asked_again_note

_RANKS = {rank.name: rank.letter for rank in Rank}
_SUITS = {suit.name: suit.letter for suit in Suit}
_DECISIONS = {"PLAY_CARD": "play a card", "CHOOSE_TRUMP": "name trump"}


def card_text(data: Any) -> str:
    """``{"rank": "ACE", "suit": "SPADES"}`` -> ``"AS"``; ``"an unreadable card"`` for anything else."""
    if not isinstance(data, dict) or str(data.get("rank")) not in _RANKS or str(data.get("suit")) not in _SUITS:
        return "an unreadable card"
    return _RANKS[str(data["rank"])] + _SUITS[str(data["suit"])]


def action_text(data: Any) -> str:
    """An ``Action`` as JSON -> ``"AS"``, ``"trump H"``, ``"trump NT"``, ``"pass"`` (``"an unreadable action"``)."""
    if not isinstance(data, dict):
        return "an unreadable action"
    if "play" in data:
        return card_text(data["play"])
    if "pass_trick" in data:
        return "pass"
    choice = data.get("choose_trump")
    if isinstance(choice, dict):
        if choice.get("no_trump"):
            return "trump NT"
        suit = _SUITS.get(str(choice.get("suit")))
        return f"trump {suit}" if suit else "an unreadable trump choice"
    return "an unreadable action"


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

        asked to play a card as seat 1 in round 2 (6 cards), trick 1 of 6, trump S;
        hand 6H KH 8D 4C; trick so far: seat 0 7C; time left 1000 ms, bank 0 ms

    A Hello request (a fault at start-up) reads ``Hello (protocol 1.0, referee 0.1.0)``.
    Returns ``"(no request)"`` for an empty or unreadable text (the bot was not started)."""
    data = _load(request_json)
    if data is None:
        return "(no request)"
    if "protocol_major" in data and "view" not in data:
        version = f"protocol {data.get('protocol_major', 0)}.{data.get('protocol_minor', 0)}"
        referee = f", referee {data['referee_version']}" if data.get("referee_version") else ""
        return f"Hello ({version}{referee})"
    view = data.get("view") if isinstance(data.get("view"), dict) else {}
    assert isinstance(view, dict)
    size = view.get("cards_dealt", view.get("hand_size"))  # "hand_size" in older results files
    decision = _DECISIONS.get(str(data.get("decision")), "decide")
    seat = view.get("seat", 0)
    head = f"asked to {decision} as seat {seat}"
    if isinstance(view.get("round_number"), int):
        head += f" in round {view['round_number']}" + (f" ({size} cards)" if isinstance(size, int) else "")
    parts = [head]
    status = view.get("status")
    if isinstance(status, list) and isinstance(seat, int) and 0 <= seat < len(status) and status[seat] == "SEAT_STATUS_DOG":
        parts[0] += " on the dog's life"
    if data.get("decision") == "PLAY_CARD" and isinstance(view.get("completed_tricks", []), list):
        parts.append(f"trick {len(view.get('completed_tricks', [])) + 1}" + (f" of {size}" if isinstance(size, int) else ""))
    state = view.get("trump_state")
    trump = _SUITS.get(str(view.get("trump")))
    if state == "TRUMP_STATE_SUIT" and trump:
        parts.append("trump " + trump)
    elif state == "TRUMP_STATE_NO_TRUMP":
        parts.append("no trump")
    elif state == "TRUMP_STATE_UNDECIDED":
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


# What a gRPC status means in the game's terms (the status itself stays in the bot's log).
_STATUS_WORDS = {
    "DEADLINE_EXCEEDED": "no answer in time",
    "UNAVAILABLE": "the connection to the bot was lost",
    "CANCELLED": "the connection to the bot was lost",
    "UNIMPLEMENTED": "the bot does not implement this call",
}
_STATUS = re.compile(r"(?:gRPC status |Hello failed with gRPC status )?\b([A-Z][A-Z_]{3,}): ?([^;]*)")
_DEADLINE = re.compile(r"deadline of (\d+) ms exceeded")
_HOST_PATH = re.compile(r"(?<![\w:/.~-])/(?:[^\s;,'\"()/]+/)+([^\s;,'\"()/]+)")
_LOG_PART = re.compile(r";? ?\blog /\S+")


def plain_words(text: str, *, paths: bool = False) -> str:
    """``text`` without gRPC statuses (``"gRPC status INTERNAL: boom"`` -> ``"an error: boom"``;
    a lost connection or a deadline in the game's terms) and without host paths (a path
    becomes its last part; where the log is, is left out: the site never serves logs), or
    with them where ``paths`` (``referee faults``, on the teacher's own machine)."""
    if not paths:
        text = _LOG_PART.sub("", text)
    text = _DEADLINE.sub(lambda m: f"no answer within {int(m.group(1)):,} ms", text)

    def status(match: re.Match[str]) -> str:
        code, details = match.group(1), match.group(2).strip()
        if code in _STATUS_WORDS:
            return _STATUS_WORDS[code]
        if code in _KNOWN_CODES:
            return f"an error: {details}" if details else "an error"
        return match.group(0)

    text = _STATUS.sub(status, text)
    return (text if paths else _HOST_PATH.sub(lambda m: m.group(1), text)).strip()


_KNOWN_CODES = frozenset({
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
    "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
})  # fmt: skip


_ASKED = re.compile(r"\basked (\d+) times(?! \()")


def fault_in_words(kind: str, detail: str, answer: str, ms: float | None = None, *, paths: bool = False) -> tuple[str, str]:
    """(what happened, what the bot answered) for a student (docs/design.md §5), with
    :func:`plain_words`: a timeout reads ``"no answer within 1,100 ms"`` and its answer
    ``"nothing in time"``; a status answer reads as what it means; "asked N times" says
    what it means where an older record does not. ``paths``: keep host paths (see
    :func:`plain_words`)."""
    words = _ASKED.sub(lambda m: asked_again_note(int(m.group(1))), plain_words(detail, paths=paths))
    code = answer.split(":", 1)[0].strip()
    if kind == "timeout" and (not answer or code == "DEADLINE_EXCEEDED"):
        return words, "nothing in time" + (f" (stopped waiting after {ms:,.0f} ms)" if ms is not None else "")
    if code in ("UNAVAILABLE", "CANCELLED"):
        return words, "nothing: " + plain_words(answer, paths=paths)
    return words, plain_words(answer, paths=paths) if answer else "(nothing)"
