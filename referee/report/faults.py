"""Faults as readable text with rich (DESIGN.md §5 evidence): per fault the game, the
decision, the bot and seat, the kind, the measured time, what the bot was asked, what it
answered and what would have been legal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from referee.checkbot.describe import describe_request, legal_answers
from referee.records import FAULT_KINDS
from referee.report.safe_text import safe_markup
from referee.store import StoredFault

KIND_STYLE = {"timeout": "yellow", "illegal": "red", "malformed": "magenta", "crash": "bold red", "startup": "bold red", "protocol": "bold red"}


def fault_counts(faults: Sequence[StoredFault]) -> str:
    """``"5 faults: timeout 3, illegal 2"`` (kinds in ``FAULT_KINDS`` order)."""
    counts = Counter(stored.fault.kind for stored in faults)
    kinds = ", ".join(f"{kind} {counts[kind]}" for kind in FAULT_KINDS if counts[kind])
    return f"{len(faults)} fault{'s' if len(faults) != 1 else ''}" + (f": {kinds}" if kinds else "")


def print_fault(console: Console, stored: StoredFault, *, full: bool = False) -> None:
    """A head line (game, decision, bot, seat, kind, ms) and indented evidence lines;
    ``full`` adds the request as sent (JSON)."""
    fault = stored.fault
    where = "before the game" if fault.decision is None else f"decision {fault.decision}"
    head = Text(f"{stored.game_id}  {where}  ", style="bold")
    head.append(f"{fault.bot} (P{fault.seat})  ", style="bold cyan")
    head.append(fault.kind.upper(), style=KIND_STYLE.get(fault.kind, "red"))
    if fault.ms is not None:
        head.append(f"  {fault.ms:.1f} ms")
    console.print(head, soft_wrap=True)
    lines = [("why", fault.detail)]
    if fault.request:
        lines.append(("asked", describe_request(fault.request)))
    lines.append(("answered", fault.answer or "(nothing)"))
    legal = legal_answers(fault.request)
    if legal:
        lines.append(("legal", " ".join(legal)))
    if full and fault.request:
        lines.append(("request", fault.request))
    for label, text in lines:
        console.print(f"    [dim]{label + ':':<9}[/] {safe_markup(text)}", soft_wrap=True, highlight=False)


def print_faults(console: Console, faults: Sequence[StoredFault], *, title: str, full: bool = False) -> None:
    """Every fault in order, then a count by kind."""
    console.print(Text(title, style="bold underline"))
    for stored in faults:
        print_fault(console, stored, full=full)
    console.print(Text(fault_counts(faults), style="bold red" if faults else "bold green"))
