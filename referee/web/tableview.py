"""The table page's model: what one person's page is sent, as JSON. Pure.

A person's page (``/table/<secret>``, :mod:`referee.web.table`) draws everything from one
state, :func:`table_state`, built from exactly what their seat may know: its
:class:`~referee.game.views.SeatView` (its own hand and the public facts, docs/design.md §3)
and the game's public events so far (those a bot is sent, one request at a time). Nothing
else reaches the browser, so no card another seat holds can: a dog's card played face down
is "a card face down" until its trick is complete (docs/rules.md W24), as in the events.

Cards travel as their text form (``"KS"``); in the lines a card is written ``{KS}`` and a
suit ``{S}``, which the page draws as a card or a suit sign. The hand is sorted by suit
(♠ ♥ ♣ ♦, red and black alternating), high cards first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.game.cards import Card, Suit
from referee.game.views import (
    CardPlayed,
    CardRevealed,
    ChooseTrump,
    DecisionKind,
    Event,
    GameEnded,
    Pass,
    Passed,
    Play,
    RoundEnded,
    RoundStarted,
    SeatStatus,
    SeatView,
    TrickWon,
    TrumpChosen,
)

HAND_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)  # red and black alternate


@dataclass(frozen=True)
class Asked:
    """The decision the person is asked now: its number in the game (their answer names it),
    and their clock: ``move_ms`` for this decision, 0 for no limit, and ``bank_ms`` left."""

    number: int
    move_ms: int = 0
    bank_ms: int = 0


def sorted_hand(hand: Sequence[Card]) -> list[Card]:
    """``hand`` by suit (♠ ♥ ♣ ♦), high cards first.

    >>> from referee.game.cards import parse_card
    >>> [str(card) for card in sorted_hand([parse_card(text) for text in "2D AS 9H KD 3S".split()])]
    ['AS', '3S', '9H', 'KD', '2D']
    """
    return sorted(hand, key=lambda card: (HAND_ORDER.index(card.suit), -card.rank))


def table_state(
    names: Sequence[str],
    view: SeatView,
    events: Sequence[Event],
    asked: Asked | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """The page's whole state for seat ``view.seat``: ``names[seat]`` the player at each
    seat, ``events`` the game's public events so far (oldest first; ``seen`` in the state
    counts them), ``asked`` the decision the person must make now (None while others
    play), ``note`` a line from the referee (the person's clock ran out, they left).

    Keys: ``game``, ``seat``, ``seen``, ``round``, ``hand_size``, ``dealer``, ``seats``
    (name, status ``in``/``dog``/``out``, tricks this round, ``dog_card``: ``held`` or
    ``played`` for a dog), ``to_play`` (the seat whose turn it is, or None), ``trump`` (a
    suit letter, ``NT`` or None), ``trump_by`` (the seat that named it; None for the
    turn-up), ``turn_up``, ``hand`` (sorted), ``trick`` and ``last_trick`` (``leader``,
    ``plays``: seat with ``card``, ``face_down`` or ``pass``; ``winner``), ``lines`` (this
    round's, one per play, oldest first), ``round_end`` (the last finished round: who is
    out and why), ``ask`` (``number``, ``kind``, legal ``cards``, ``pass``, ``suits``,
    ``move_ms``, ``bank_ms``) and ``over`` (``winner``, ``placements``).
    """
    seat = view.seat
    story = _Story(names, seat)
    for event in events:
        story.tell(event)
    trump = "NT" if view.no_trump else view.trump.letter if view.trump is not None else None
    seats = []
    for other, name in enumerate(names):
        status = view.status[other].value if other < len(view.status) else SeatStatus.OUT.value
        entry: dict[str, Any] = {"name": name, "status": status, "tricks": view.tricks_won[other] if other < len(view.tricks_won) else 0}
        if view.status[other] is SeatStatus.DOG and not story.over:
            entry["dog_card"] = "played" if other in story.dogs_played else "held"
        seats.append(entry)
    state: dict[str, Any] = {
        "game": view.game_id,
        "seat": seat,
        "seen": len(events),
        "round": view.round_number,
        "hand_size": view.hand_size,
        "dealer": view.dealer,
        "seats": seats,
        "to_play": None if story.over else _to_play(view, trump),
        "trump": trump,
        "trump_by": story.trump_by,
        "turn_up": str(view.turn_up) if view.turn_up is not None else None,
        "hand": [str(card) for card in sorted_hand(view.hand)],
        "trick": _trick_json(view) if not story.over else None,
        "last_trick": story.last_trick,
        "lines": story.lines,
        "round_end": story.round_end,
        "ask": _ask_json(view, asked) if asked is not None and not story.over else None,
        "over": story.over,
    }
    if note:
        state["note"] = note
    return state


def _to_play(view: SeatView, trump: str | None) -> int | None:
    if view.to_play:
        return view.to_play[0]
    if trump is None and view.trump_chooser is not None:
        return view.trump_chooser
    return None


def _trick_json(view: SeatView) -> dict[str, Any] | None:
    trick = view.current_trick
    if trick is None:
        return None
    return {"leader": trick.leader, "plays": [_play_json(play.seat, play.card, play.face_down) for play in trick.plays]}


def _play_json(seat: int, card: Card | None, face_down: bool) -> dict[str, Any]:
    if face_down:  # a face-down card the seat may see: its own (the view hides the others')
        return {"seat": seat, "face_down": True, **({"card": str(card)} if card is not None else {})}
    if card is None:
        return {"seat": seat, "pass": True}
    return {"seat": seat, "card": str(card)}


def _ask_json(view: SeatView, asked: Asked) -> dict[str, Any]:
    kind = "choose_trump" if view.decision is DecisionKind.CHOOSE_TRUMP else "play"
    return {
        "number": asked.number,
        "kind": kind,
        "cards": [str(action.card) for action in view.legal if isinstance(action, Play)],
        "pass": any(isinstance(action, Pass) for action in view.legal),
        "suits": [action.suit.letter if action.suit is not None else "NT" for action in view.legal if isinstance(action, ChooseTrump)],
        "move_ms": asked.move_ms,
        "bank_ms": asked.bank_ms,
    }


class _Story:
    """The public events told as the page shows them: a line per play, the tricks, who named
    trump, which dogs have played their card, and how the last round ended."""

    def __init__(self, names: Sequence[str], seat: int) -> None:
        self.names = names
        self.seat = seat
        self.lines: list[str] = []
        self.trump_by: int | None = None
        self.dogs: set[int] = set()
        self.dogs_played: set[int] = set()
        self.plays: list[dict[str, Any]] = []
        self.last_trick: dict[str, Any] | None = None
        self.round_end: dict[str, Any] | None = None
        self.over: dict[str, Any] | None = None
        self.round = 0

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "the referee"
        return "you" if seat == self.seat else self.names[seat]

    def subject(self, seat: int) -> str:
        """``who`` at the start of a sentence: ``You`` for the person's own seat."""
        return "You" if seat == self.seat else self.who(seat)

    def tell(self, event: Event) -> None:
        if isinstance(event, RoundStarted):
            self._round_started(event)
        elif isinstance(event, TrumpChosen):
            self.trump_by = event.seat
            if event.seat is not None:
                named = "no trump" if event.suit is None else f"trump {{{event.suit.letter}}}"
                self.lines.append(f"{self.subject(event.seat)} named {named}")
            elif event.suit is not None:
                self.lines.append(f"Trump is {{{event.suit.letter}}}, the turn-up's suit")
        elif isinstance(event, CardPlayed):
            self._card_played(event)
        elif isinstance(event, CardRevealed):
            for play in self.plays:
                if play["seat"] == event.seat and play.get("face_down"):
                    play["card"] = str(event.card)
            self.lines.append(f"{self.subject(event.seat)}: the face-down card is {{{event.card}}}")
        elif isinstance(event, Passed):
            self.plays.append({"seat": event.seat, "pass": True})
            self.lines.append(f"{self.subject(event.seat)} knocked: the dog keeps its card for a later trick")
        elif isinstance(event, TrickWon):
            leader = self.plays[0]["seat"] if self.plays else event.seat
            self.last_trick = {"leader": leader, "plays": self.plays, "winner": event.seat, "number": event.trick_number}
            self.plays = []
            self.lines.append(f"{self.subject(event.seat)} won trick {event.trick_number}")
        elif isinstance(event, RoundEnded):
            self._round_ended(event)
        elif isinstance(event, GameEnded):
            winner = self.who(event.winner) if event.winner is not None else "nobody"
            self.over = {"winner": event.winner, "placements": list(event.placements)}
            self.lines.append(f"Game over: {winner} {'win' if event.winner == self.seat else 'wins'} the game")

    def _round_started(self, event: RoundStarted) -> None:
        self.round = event.round_number
        self.lines = [f"Round {event.round_number}: {self.who(event.dealer)} dealt {event.hand_size} card{'s' if event.hand_size != 1 else ''} each"]
        self.dogs = {seat for seat, status in enumerate(event.status) if status is SeatStatus.DOG}
        self.dogs_played = set()
        for dog in sorted(self.dogs):
            self.lines.append(f"{self.subject(dog)} {'have' if dog == self.seat else 'has'} the dog's life: one card, played on a trick of the dog's choosing")
        if event.turn_up is not None:
            self.lines.append(f"The turn-up is {{{event.turn_up}}}")
        if event.trump_chooser is not None:
            self.lines.append(f"{self.subject(event.trump_chooser)} took the most tricks last round and {'name' if event.trump_chooser == self.seat else 'names'} trump")
        self.trump_by = None

    def _card_played(self, event: CardPlayed) -> None:
        led = not any("card" in play and not play.get("face_down") for play in self.plays)  # a face-down card leads no suit
        if event.seat in self.dogs:
            self.dogs_played.add(event.seat)
        if event.face_down:
            self.plays.append({"seat": event.seat, "face_down": True})
            self.lines.append(f"{self.subject(event.seat)} (the dog) played a card face down")
            return
        assert event.card is not None
        self.plays.append({"seat": event.seat, "card": str(event.card)})
        self.lines.append(f"{self.subject(event.seat)} {'led' if led else 'played'} {{{event.card}}}")

    def _round_ended(self, event: RoundEnded) -> None:
        why = []
        for seat in event.knocked_out:
            tricks = event.tricks_won[seat] if seat < len(event.tricks_won) else 0
            if seat in event.forfeited:
                reason = "forfeited: the referee played the seat after its faults or its player left"
            elif seat in self.dogs:
                reason = "the dog took no trick"
            elif tricks == 0:
                reason = "took no trick"
            else:
                reason = f"took {tricks} trick{'s' if tricks != 1 else ''}, fewer than the round asked (strict rules)"
            why.append(f"{self.subject(seat)} {'are' if seat == self.seat else 'is'} knocked out: {reason}")
        for seat in event.dogs:
            why.append(f"{self.subject(seat)} took no trick: the dog's life, one card next round")
        for seat in sorted(self.dogs - set(event.knocked_out)):
            why.append(f"{self.subject(seat)} won a trick with the dog's card: back in with a full hand")
        counts = ", ".join(f"{self.who(seat)} {count}" for seat, count in enumerate(event.tricks_won))
        self.round_end = {"round": event.round_number, "tricks": counts, "lines": why or ["nobody is knocked out"]}
        self.lines.append(f"Round {event.round_number} over: tricks {counts}")
        self.lines.extend(why)
