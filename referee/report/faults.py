"""Faults as readable text with rich, and as JSON or CSV (docs/design.md §5 evidence).

The summary gives per bot its faults by kind and the first example of each kind; the full
listing gives every fault: the game, the decision, the bot and seat, the kind, the
measured time, what the bot was asked, what it answered and what would have been legal.
Bot-supplied text (answers, stderr in details) is printed as plain text, never as markup,
with control characters removed.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from referee.checkbot.describe import describe_request, fault_in_words, legal_answers
from referee.game.records import FAULT_KINDS
from referee.report.safe_text import safe_text
from referee.results.store import StoredFault

KIND_STYLE = {"timeout": "yellow", "illegal": "red", "malformed": "magenta", "crash": "bold red", "startup": "bold red", "protocol": "bold red"}
CSV_FIELDS = ("game_id", "bot", "seat", "kind", "decision", "ms", "detail", "answer", "request", "log")
_GAME_LINE = re.compile(r"^\[referee\] game (\S+): seat (\d+)$")


def find_logs(run_dir: Path) -> dict[tuple[str, int], Path]:
    """(game id, seat) -> the bot log that played it: each log of ``run_dir`` marks the
    games its process played (``[referee] game <id>: seat N``)."""
    found: dict[tuple[str, int], Path] = {}
    for path in sorted(run_dir.glob("*.log")) if run_dir.is_dir() else ():
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            match = _GAME_LINE.match(line)
            if match:
                found[(match.group(1), int(match.group(2)))] = path
    return found


def plain(text: str) -> str:
    """Bot-supplied text made safe to print on one line: newlines and tabs turned into
    spaces, other control characters shown inert (:func:`referee.report.safe_text.safe_text`);
    rich markup is never interpreted: print it as a :class:`rich.text.Text`."""
    return safe_text(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))


def fault_counts(faults: Sequence[StoredFault]) -> str:
    """``"5 faults: timeout 3, illegal 2"`` (kinds in ``FAULT_KINDS`` order)."""
    counts = Counter(stored.fault.kind for stored in faults)
    kinds = ", ".join(f"{kind} {counts[kind]}" for kind in FAULT_KINDS if counts[kind])
    return f"{len(faults)} fault{'s' if len(faults) != 1 else ''}" + (f": {kinds}" if kinds else "")


def asked_line(stored: StoredFault) -> str:
    """What the bot was asked, in one line: the decision for a game fault; the Hello
    request for a startup or protocol fault ("not asked" when its process never started)."""
    fault = stored.fault
    if fault.kind in ("startup", "protocol"):
        if not fault.request:
            return "nothing: its process could not be started"
        try:
            hello = json.loads(fault.request)
            return (
                f"Hello (protocol {hello.get('protocol_major', '?')}.{hello.get('protocol_minor', '?')}, "
                f"referee {hello.get('referee_version', '?')}), before its first game: {fault.request}"
            )
        except (ValueError, AttributeError):
            return f"Hello: {fault.request}"
    return describe_request(fault.request)


def print_fault(console: Console, stored: StoredFault, *, full: bool = False, log: Path | None = None) -> None:
    """A head line (game, decision, bot, seat, kind, ms) and indented evidence lines;
    ``full`` adds the request as sent (JSON); ``log`` the bot log of that game."""
    fault = stored.fault
    where = "before the game" if fault.decision is None else f"decision {fault.decision}"
    head = Text(f"{stored.game_id}  {where}  ", style="bold")
    head.append(f"{plain(fault.bot)} (seat {fault.seat})  ", style="bold cyan")
    head.append(fault.kind.upper(), style=KIND_STYLE.get(fault.kind, "red"))
    if fault.ms is not None:
        head.append(f"  {fault.ms:.1f} ms")
    console.print(head, soft_wrap=True)
    why, answered = fault_in_words(fault.kind, fault.detail, fault.answer, fault.ms, paths=True)  # no gRPC words: what happened, plainly
    lines = [("why", why), ("asked", asked_line(stored)), ("answered", answered)]
    legal = legal_answers(fault.request) if fault.kind not in ("startup", "protocol") else []
    if legal:
        lines.append(("legal", " ".join(legal)))
    if full and fault.request and fault.kind not in ("startup", "protocol"):
        lines.append(("request", fault.request))
    if log is not None:
        lines.append(("log", str(log)))
    for label, text in lines:
        line = Text(f"    {label + ':':<9} ", style="dim")
        line.append(plain(text), style="")
        console.print(line, soft_wrap=True, highlight=False)


def overload_line(overloads: Mapping[str, tuple[int, int]]) -> str | None:
    """One line saying how many decisions the machine held up (docs/design.md §5), per
    bot; None when there were none. ``overloads``: bot -> (decisions held up, of those
    asked again), as ``ResultsStore.overloads`` gives it. A decision asked again is
    explained where it is counted."""
    total = sum(count for count, _ in overloads.values())
    if not total:
        return None
    again = sum(asked for _, asked in overloads.values())
    per_bot = ", ".join(f"{plain(bot)} {count}" for bot, (count, _) in sorted(overloads.items(), key=lambda item: (-item[1][0], item[0])))
    return (
        f"referee overloaded: the machine, not the bot, held up {total} decision{'s' if total != 1 else ''} ({per_bot}); "
        f"{again} {'were' if again != 1 else 'was'} asked again (with a fresh deadline, at most 4 times); "
        "only the bot's own time was charged; each bot's log says which"
    )


def print_summary(console: Console, faults: Sequence[StoredFault], *, title: str, logs: Mapping[tuple[str, int], Path] | None = None) -> None:
    """Per bot (most faults first): its count by kind, then the first fault of each kind
    with its evidence."""
    console.print(Text(title, style="bold underline"))
    by_bot: dict[str, list[StoredFault]] = {}
    for stored in faults:
        by_bot.setdefault(stored.fault.bot, []).append(stored)
    for bot, mine in sorted(by_bot.items(), key=lambda item: (-len(item[1]), item[0])):
        console.print(Text(f"{plain(bot)}: {fault_counts(mine)}", style="bold"), soft_wrap=True)
        for kind in FAULT_KINDS:
            first = next((stored for stored in mine if stored.fault.kind == kind), None)
            if first is not None:
                console.print(Text(f"  first {kind}:", style="dim"))
                print_fault(console, first, log=(logs or {}).get((first.game_id, first.fault.seat)))
    console.print(Text(fault_counts(faults), style="bold red" if faults else "bold green"))
    if faults:
        console.print(Text("every fault with its request: --full; as data: --format json or --format csv", style="dim"))


def print_faults(
    console: Console, faults: Sequence[StoredFault], *, title: str, full: bool = False, logs: Mapping[tuple[str, int], Path] | None = None
) -> None:
    """Every fault in order, then a count by kind."""
    console.print(Text(title, style="bold underline"))
    for stored in faults:
        print_fault(console, stored, full=full, log=(logs or {}).get((stored.game_id, stored.fault.seat)))
    console.print(Text(fault_counts(faults), style="bold red" if faults else "bold green"))


def fault_row(stored: StoredFault, logs: Mapping[tuple[str, int], Path] | None = None) -> dict[str, Any]:
    """One fault as flat data (the keys of :data:`CSV_FIELDS`; ``log`` "" when unknown)."""
    fault = stored.fault
    log = (logs or {}).get((stored.game_id, fault.seat))
    return {
        "game_id": stored.game_id,
        "bot": fault.bot,
        "seat": fault.seat,
        "kind": fault.kind,
        "decision": fault.decision,
        "ms": fault.ms,
        "detail": fault.detail,
        "answer": fault.answer,
        "request": fault.request,
        "log": str(log) if log is not None else "",
    }


def faults_json(faults: Sequence[StoredFault], *, league: str, logs: Mapping[tuple[str, int], Path] | None = None) -> str:
    """``{"league", "summary": {bot: {kind: count, "total": n}}, "faults": [row...]}``."""
    summary: dict[str, dict[str, int]] = {}
    for stored in faults:
        counts = summary.setdefault(stored.fault.bot, {kind: 0 for kind in FAULT_KINDS} | {"total": 0})
        counts[stored.fault.kind] += 1
        counts["total"] += 1
    return json.dumps({"league": league, "summary": summary, "faults": [fault_row(s, logs) for s in faults]}, indent=2, ensure_ascii=False)


def faults_csv(faults: Sequence[StoredFault], logs: Mapping[tuple[str, int], Path] | None = None) -> str:
    """A header line of :data:`CSV_FIELDS`, then one row per fault."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for stored in faults:
        writer.writerow(fault_row(stored, logs))
    return out.getvalue()
