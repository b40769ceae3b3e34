"""A game's trick-by-trick trace from its record, with rich (suit symbols, trump marked,
the winning card of each trick highlighted, knock-outs and dogs called out, cards the
referee played for a bot marked ``*``, faults under the round they happened in)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from referee.game.cards import parse_card, parse_suit
from referee.game.records import FaultRecord, GameRecord
from referee.report.safe_text import safe_text

SUIT_STYLE = {"S": "bold", "C": "bold", "H": "bold red", "D": "bold red"}


def card_text(name: str | None, *, trump: str | None = None, winner: bool = False) -> Text:
    """``"AS"`` -> ``A♠`` styled by suit; trump cards underlined, the winner reversed."""
    if name is None:
        return Text("pass", style="dim italic")
    card = parse_card(name)
    style = SUIT_STYLE[card.suit.letter]
    if trump is not None and card.suit.letter == trump:
        style += " underline"
    if winner:
        style += " reverse"
    return Text(card.pretty, style=style)


def seat_label(record: GameRecord, seat: int) -> str:
    """``heuristic (seat 2)``: the bot's name and its seat, 0-based (seats are numbered so everywhere)."""
    return f"{record.seats[seat]} (seat {seat})"


def print_trace(console: Console, record: GameRecord) -> None:
    """Print the whole game, round by round and trick by trick."""
    console.print(Text(f"Game {record.game_id}", style="bold underline"))
    console.print("seats: " + ", ".join(seat_label(record, s) for s in range(len(record.seats))), highlight=False)
    for fault in record.faults:
        if fault.decision is None:
            _print_fault(console, fault, "before the game")
    first = 0
    for summary in record.rounds:
        first = _print_round(console, record, summary, first)
    order = sorted(range(len(record.seats)), key=lambda s: record.placements[s])
    result = ", ".join(f"{record.placements[s]}. {record.seats[s]}" for s in order)
    console.print(Text("result: " + result, style="bold green"))
    if any(action.ms is None or action.fault is not None for action in record.actions):
        console.print(Text("* a card the referee played for the bot: its fallback after a fault, or a seat no bot played (docs/design.md §5)", style="dim"))


def _print_fault(console: Console, fault: FaultRecord, where: str) -> None:
    console.print(Text(f"  fault: {fault.bot} (seat {fault.seat}) {fault.kind} {where}: {safe_text(fault.detail)}", style="red"))


def _print_round(console: Console, record: GameRecord, summary: dict[str, Any], first: int) -> int:
    """Print one round; ``first`` is the number of its first decision. Cards the referee
    played for a bot (a fallback) are marked ``*``; faults follow the round they happened
    in. Returns the number of the next round's first decision."""
    trump = summary["trump"]
    decision = first + (1 if summary["trump_chooser"] is not None else 0)
    head = Text(f"Round {summary['round']}", style="bold")
    head.append(f" — dealer {seat_label(record, summary['dealer'])}, {summary['hand_size']} cards, ")
    if summary["turn_up"]:
        head.append("turn-up ")
        head.append_text(card_text(summary["turn_up"]))
        head.append(", ")
    if summary["no_trump"]:
        head.append("no trump", style="bold yellow")
    elif trump:
        head.append("trump ")
        head.append(parse_suit(trump).symbol, style=SUIT_STYLE[trump])
    if summary["trump_chooser"] is not None:
        head.append(f", named by {seat_label(record, summary['trump_chooser'])}")
    console.print(head)
    for number, trick in enumerate(summary["tricks"], start=1):
        line = Text(f"  trick {number}: ")
        for seat, card in trick["plays"]:
            line.append(f"seat {seat} ")
            is_winner = card is not None and seat == trick["winner"]
            line.append_text(card_text(card, trump=trump, winner=is_winner))
            action = record.actions[decision] if decision < len(record.actions) else None
            by_referee = action is not None and (action.ms is None or action.fault is not None)
            line.append("* " if by_referee else "  ", style="bold red")
            decision += 1
        line.append(f"→ {seat_label(record, trick['winner'])}", style="bold")
        console.print(line)
    dealt_in = [seat for seat, hand in enumerate(summary["hands"]) if hand]
    tricks = ", ".join(f"seat {seat} took {summary['tricks_won'][seat]}" for seat in dealt_in)
    end = Text(f"  tricks: {tricks}")
    if summary["knocked_out"]:
        end.append("; knocked out: " + ", ".join(seat_label(record, s) for s in summary["knocked_out"]), style="bold red")
    if summary["dogs"]:
        end.append("; dog's life: " + ", ".join(seat_label(record, s) for s in summary["dogs"]), style="bold yellow")
    if summary.get("forfeited"):
        end.append("; forfeited: " + ", ".join(seat_label(record, s) for s in summary["forfeited"]), style="bold magenta")
    console.print(end)
    for fault in record.faults:
        if fault.decision is not None and first <= fault.decision < decision:
            _print_fault(console, fault, f"at decision {fault.decision}")
    return decision
