"""A game's trick-by-trick trace from its record, with rich (suit symbols, trump marked,
the winning card of each trick highlighted, knock-outs and dogs called out)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from referee.cards import parse_card, parse_suit
from referee.records import GameRecord

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
    return f"P{seat} {record.seats[seat]}"


def print_trace(console: Console, record: GameRecord) -> None:
    """Print the whole game, round by round and trick by trick."""
    console.print(Text(f"Game {record.game_id}", style="bold underline"))
    console.print("seats: " + ", ".join(seat_label(record, s) for s in range(len(record.seats))), highlight=False)
    for summary in record.rounds:
        _print_round(console, record, summary)
    for fault in record.faults:
        where = "before the game" if fault.decision is None else f"decision {fault.decision}"
        console.print(Text(f"  fault: {fault.bot} (P{fault.seat}) {fault.kind} at {where}: {fault.detail}", style="red"))
    order = sorted(range(len(record.seats)), key=lambda s: record.placements[s])
    result = ", ".join(f"{record.placements[s]}. {record.seats[s]}" for s in order)
    console.print(Text("result: " + result, style="bold green"))


def _print_round(console: Console, record: GameRecord, summary: dict[str, Any]) -> None:
    trump = summary["trump"]
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
        head.append(f" (named by {seat_label(record, summary['trump_chooser'])})")
    console.print(head)
    for number, trick in enumerate(summary["tricks"], start=1):
        line = Text(f"  trick {number}: ")
        for seat, card in trick["plays"]:
            line.append(f"P{seat} ")
            is_winner = card is not None and seat == trick["winner"]
            line.append_text(card_text(card, trump=trump, winner=is_winner))
            line.append("  ")
        line.append(f"→ P{trick['winner']}", style="bold")
        console.print(line)
    dealt_in = [seat for seat, hand in enumerate(summary["hands"]) if hand]
    tricks = " ".join(f"P{seat}:{summary['tricks_won'][seat]}" for seat in dealt_in)
    end = Text(f"  tricks {tricks}")
    if summary["knocked_out"]:
        end.append("; knocked out: " + ", ".join(seat_label(record, s) for s in summary["knocked_out"]), style="bold red")
    if summary["dogs"]:
        end.append("; dog's life: " + ", ".join(seat_label(record, s) for s in summary["dogs"]), style="bold yellow")
    if summary.get("forfeited"):
        end.append("; forfeited: " + ", ".join(seat_label(record, s) for s in summary["forfeited"]), style="bold magenta")
    console.print(end)
