"""The ``debug`` preset's trace (docs/design.md §5): every request sent and every reply
received in a game, one JSON object per line, in ``<run_dir>/trace/<game_id>.jsonl``.

A :class:`TraceLog` is the ``trace`` hook of :func:`referee.league.match.play_match`. Each line::

    {"decision": 12, "seat": 1, "bot": "mybot", "request": {...as sent...},
     "answer": "AS", "ms": 0.8, "fault": null, "played": "AS"}

``request`` is the DecisionRequest as JSON (null for a seat the referee plays), ``answer``
what the bot answered (or the gRPC status), ``ms`` the measured time, ``fault`` the
fault the referee judged, as ``referee faults`` lists it (``illegal``, ``malformed``,
``crash``; there are no timeouts without limits), null for none, and
``played`` the action applied (the fallback when the answer was not legal).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from referee.game.records import FaultKind
from referee.game.views import Action, SeatView, format_action
from referee.transport.replies import Reply


class TraceLog:
    """Appends one line per decision to ``path`` (created with its folder); ``seats[i]``
    is the bot name at seat i. Call :meth:`close` when the game ends."""

    def __init__(self, path: Path, seats: Sequence[str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._seats = tuple(seats)
        self._file: IO[str] = path.open("w", encoding="utf-8")
        self._decision = 0

    @classmethod
    def for_game(cls, run_dir: Path, game_id: str, seats: Sequence[str]) -> TraceLog:
        """The trace of game ``game_id``: ``<run_dir>/trace/<game_id>.jsonl`` (replaced)."""
        return cls(run_dir / "trace" / f"{game_id}.jsonl", seats)

    def __call__(self, seat: int, view: SeatView, reply: Reply | None, action: Action, fault: FaultKind | None = None) -> None:
        line = {
            "decision": self._decision,
            "seat": seat,
            "bot": self._seats[seat] if seat < len(self._seats) else "",
            "request": json.loads(reply.request_json) if reply is not None and reply.request_json else None,
            "answer": reply.answer if reply is not None else None,
            "ms": round(reply.ms, 3) if reply is not None else None,
            "fault": fault,
            "played": format_action(action),
        }
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._decision += 1

    def close(self) -> None:
        self._file.close()
