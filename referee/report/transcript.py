"""The per-seat transcript: what one seat was sent, request by request, with rich
(issue 3 §3, ``referee replay RESULTS GAME --seat N``).

For each request: its number and the decision number, round and trick, the seat's hand,
the trump, the current trick, the public events since the seat's last request, the legal
actions, the time left, what the bot answered, how long it took, and any fault. Only
what the request holds is shown (decoded back from the request itself), so no other
seat's hand can appear.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from referee.game.cards import Card
from referee.game.records import GameRecord
from referee.report.safe_text import safe_text
from referee.report.seat_requests import SentRequest
from referee.report.trace import SUIT_STYLE, card_text, seat_label
from referee.game.views import (
    Action,
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
    parse_action,
)

_LABEL_WIDTH = 9


def print_transcript(console: Console, record: GameRecord, seat: int, requests: Sequence[SentRequest], *, time_note: str = "") -> None:
    """Print every request in ``requests`` (all sent to ``seat`` of ``record``).

    ``time_note`` says why the time left is not known, shown once at the top when it is not.
    """
    console.print(Text(f"Game {record.game_id} — what {seat_label(record, seat)} was sent", style="bold underline"))
    console.print("seats: " + ", ".join(seat_label(record, s) for s in range(len(record.seats))), highlight=False)
    decisions = sum(1 for action in record.actions if action.seat == seat)
    line = f"{len(requests)} requests; {decisions} decisions of this seat in all"
    if decisions != len(requests):
        line += f" ({decisions - len(requests)} played by the referee: the bot had failed to start, crashed or forfeited)"
    console.print(line, highlight=False)
    if time_note and any(request.time_left_ms is None for request in requests):
        console.print(Text(time_note, style="dim"))
    for number, request in enumerate(requests, start=1):
        _print_request(console, record, number, len(requests), request)


def _print_request(console: Console, record: GameRecord, number: int, total: int, request: SentRequest) -> None:
    view = request.view
    asked = "choose trump" if view.decision is DecisionKind.CHOOSE_TRUMP else "play a card"
    where = f"round {view.round_number}" + (f", trick {view.trick_number}" if view.decision is DecisionKind.PLAY else "")
    console.print(Rule(f"request {number}/{total} · decision {request.decision} · {where} · {asked}", align="left"))
    trump = _trump_letter(view)
    _field(console, "table", _table_text(record, view))
    _field(console, "trump", _trump_text(view))
    if request.events:
        _field(console, "events", _joined([_event_text(event, trump) for event in request.events], " · "))
    if view.decision is DecisionKind.PLAY:
        _field(console, "trick", _trick_text(view, trump))
    _field(console, "hand", _cards_text(view.hand, trump) if view.hand else Text("(empty)", style="dim"))
    _field(console, "legal", _joined([_action_text(action, trump) for action in view.legal], "  "))
    _field(console, "time", _time_text(request))
    _field(console, "answer", _answer_text(request, trump))
    fault = request.fault
    if fault is not None:
        text = Text(f"{fault.kind}: {safe_text(fault.detail)}", style="bold red")
        if fault.answer:
            text.append(f"  (the bot answered: {safe_text(fault.answer)})", style="red")
        _field(console, "fault", text)
    if request.evidence_matches is False:
        _field(console, "warning", Text("the request recorded with the fault differs from this rebuilt one", style="bold yellow"))


def _field(console: Console, label: str, value: Text) -> None:
    line = Text(f"  {label + ':':<{_LABEL_WIDTH}}", style="bold")
    line.append_text(value)
    console.print(line)


def _joined(parts: Sequence[Text], separator: str) -> Text:
    if not parts:
        return Text("(none)", style="dim")
    return Text(separator).join(parts)


def _trump_letter(view: SeatView) -> str | None:
    return view.trump.letter if view.trump is not None else None


def _cards_text(cards: Sequence[Card], trump: str | None) -> Text:
    return Text(" ").join(card_text(str(card), trump=trump) for card in cards)


def _table_text(record: GameRecord, view: SeatView) -> Text:
    """You, the dealer, and each seat's standing and tricks this round."""
    text = Text(f"you are {seat_label(record, view.seat)}; dealer seat {view.dealer}; {view.hand_size} cards this round; ")
    parts = []
    for seat, status in enumerate(view.status):
        if status is SeatStatus.OUT:
            parts.append(Text(f"seat {seat} out", style="dim"))
        else:
            count = view.tricks_won[seat]
            label = f"seat {seat}{' (dog)' if status is SeatStatus.DOG else ''}: {count} trick{'' if count == 1 else 's'}"
            parts.append(Text(label, style="bold" if seat == view.seat else ""))
    text.append_text(Text(", ").join(parts))
    return text


def _trump_text(view: SeatView) -> Text:
    text = Text()
    if view.no_trump:
        text.append("no trump", style="bold yellow")
    elif view.trump is not None:
        text.append(view.trump.symbol, style=SUIT_STYLE[view.trump.letter])
    else:
        text.append("not named yet", style="dim")
    if view.turn_up is not None:
        text.append(" (turn-up ")
        text.append_text(card_text(str(view.turn_up)))
        text.append(")")
    elif view.trump_chooser is not None:
        text.append(f" (named by seat {view.trump_chooser})" if view.trump is not None or view.no_trump else f" (seat {view.trump_chooser} names it)")
    return text


def _trick_text(view: SeatView, trump: str | None) -> Text:
    trick = view.current_trick
    if trick is None or not trick.plays:
        return Text("you lead" if trick is None or trick.leader == view.seat else f"seat {trick.leader} leads", style="dim")
    parts = []
    for play in trick.plays:
        part = Text(f"seat {play.seat} ")
        if play.face_down and play.card is None:
            part.append("face down", style="dim italic")  # docs/rules.md W24
        else:
            part.append_text(card_text(str(play.card) if play.card is not None else None, trump=trump))
        parts.append(part)
    text = Text("  ").join(parts)
    if view.led_suit is not None:
        text.append(f"   (led {view.led_suit.symbol})", style="dim")
    return text


def _action_text(action: Action, trump: str | None) -> Text:
    if isinstance(action, Play):
        return card_text(str(action.card), trump=trump)
    if isinstance(action, ChooseTrump):
        if action.suit is None:
            return Text("no trump", style="bold yellow")
        return Text(action.suit.symbol, style=SUIT_STYLE[action.suit.letter])
    if isinstance(action, Pass):
        return Text("pass", style="dim italic")
    raise TypeError(f"not an action: {action!r}")


def _time_text(request: SentRequest) -> Text:
    if request.time_left_ms is None:
        return Text("not recorded (the results file holds no time control)", style="dim")
    if request.time_left_ms == 0:
        return Text("no limit")
    return Text(f"{request.time_left_ms} ms left, bank {request.bank_left_ms or 0} ms")


def _answer_text(request: SentRequest, trump: str | None) -> Text:
    action = request.action
    ms = f" in {action.ms:.1f} ms" if action.ms is not None else ""
    played = _action_text(parse_action(action.action), trump)
    if request.fault is None:
        text = played
        text.append(ms)
        return text
    text = Text(f"a fault{ms}; the referee played ", style="red")
    text.append_text(played)
    text.append(" (fallback)", style="red")
    return text


def _event_text(event: Event, trump: str | None) -> Text:
    """One public event in a few words, e.g. ``seat 2 9♣``, ``seat 0 won trick 3``."""
    match event:
        case RoundStarted():
            text = Text(f"round {event.round_number} dealt by seat {event.dealer}, {event.hand_size} cards", style="bold")
            dogs = [str(seat) for seat, status in enumerate(event.status) if status is SeatStatus.DOG]
            if dogs:
                text.append(f"; dog{'s' if len(dogs) > 1 else ''} {_seats(dogs)}")
            if event.turn_up is not None:
                text.append("; turn-up ")
                text.append_text(card_text(str(event.turn_up)))
            if event.trump_chooser is not None:
                text.append(f"; seat {event.trump_chooser} names trump")
            return text
        case TrumpChosen():
            if event.suit is None:
                return Text(f"seat {event.seat} declared no trump", style="bold yellow")
            text = Text("trump " if event.seat is None else f"seat {event.seat} named trump ")
            text.append(event.suit.symbol, style=SUIT_STYLE[event.suit.letter])
            return text
        case CardPlayed():
            if event.card is None:
                return Text(f"seat {event.seat} played face down", style="dim italic")
            text = Text(f"seat {event.seat} ")
            text.append_text(card_text(str(event.card), trump=trump))
            return text
        case CardRevealed():
            text = Text(f"seat {event.seat}'s face-down card: ")
            text.append_text(card_text(str(event.card), trump=trump))
            return text
        case Passed():
            return Text(f"seat {event.seat} passed", style="dim italic")
        case TrickWon():
            return Text(f"seat {event.seat} won trick {event.trick_number}", style="bold")
        case RoundEnded():
            tricks = ", ".join(f"seat {seat} took {count}" for seat, count in enumerate(event.tricks_won))
            text = Text(f"round {event.round_number} over, tricks: {tricks}", style="bold")
            if event.knocked_out:
                text.append(f"; knocked out {_seats(event.knocked_out)}", style="bold red")
            if event.dogs:
                text.append(f"; dog's life {_seats(event.dogs)}", style="bold yellow")
            if event.forfeited:
                text.append(f"; forfeited {_seats(event.forfeited)}", style="bold magenta")
            return text
        case GameEnded():
            return Text(f"game over, winner seat {event.winner}" if event.winner is not None else "game over", style="bold")
    raise TypeError(f"not an event: {event!r}")


def _seats(seats: Sequence[int | str]) -> str:
    """``[1, 3]`` -> ``seat 1, seat 3``."""
    return ", ".join(f"seat {seat}" for seat in seats)
