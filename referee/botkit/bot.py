"""The base class of a Python bot (docs/design.md §4), and the game summary it is told.

Subclass :class:`Bot`, set ``name`` and ``author``, implement :meth:`Bot.play` (and
usually :meth:`Bot.choose_trump`), then call :func:`referee.botkit.serve`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.game.cards import Card, Suit
from referee.game.views import Event, SeatView


@dataclass(frozen=True)
class TimeLeft:
    """This decision's time, as the request tells it (docs/protocol.md, "Time and faults"):
    ``time_left_ms`` the limit for this decision (0: no limit), ``bank_left_ms`` the game's
    time bank left (0: none), and ``received_s`` when the kit received the request, on the
    bot's ``time.monotonic()`` clock (the referee's clock started a little earlier)."""

    time_left_ms: int
    bank_left_ms: int
    received_s: float

    def deadline_s(self, share: float, no_limit_ms: int) -> float:
        """The ``time.monotonic()`` time by which to answer, spending ``share`` (0-1) of
        ``time_left_ms`` and keeping the rest as a margin for the machine and the wire;
        ``no_limit_ms`` when there is no limit (``time_left_ms = 0``). Raises ValueError
        for a share outside 0-1."""
        if not 0 <= share <= 1:
            raise ValueError(f"share = {share}: expected 0-1 of time_left_ms")
        spend_ms = share * self.time_left_ms if self.time_left_ms else no_limit_ms
        return self.received_s + spend_ms / 1000


@dataclass(frozen=True)
class GameSummary:
    """The public result of a game: ``placements[seat]`` is 1 for the winner, seats
    knocked out in the same round share a place (rules.md R21); ``seat`` is this bot's.
    Per seat: ``forfeited`` (knocked out by the referee for faults, docs/design.md §5) and
    ``faults`` (recorded in this game); empty from a referee that does not send them."""

    game_id: str
    seat: int
    placements: tuple[int, ...]
    winner: int | None
    forfeited: tuple[bool, ...] = ()
    faults: tuple[int, ...] = ()


class Bot:
    """A Knockout Whist bot. Every decision gets the full :class:`SeatView` (own hand and
    public facts, ``view.legal`` the legal actions), so a bot may keep no state at all.

    ``concurrent``: when False (default) the kit calls the bot's methods one at a time,
    even if the referee interleaves games on this process; set True only if the methods
    are thread-safe (then keep per-game state keyed by ``view.game_id``).
    """

    name: str = "python-bot"
    author: str = ""
    concurrent: bool = False

    def play(self, view: SeatView) -> Card | None:
        """Return the card to play to the current trick (one of ``view.legal``), or None to
        pass: only a dog may pass, never on the last trick (rules.md R18)."""
        raise NotImplementedError(f"{type(self).__name__}.play is not implemented")

    def choose_trump(self, view: SeatView) -> Suit | None:
        """Return the trump suit for this round (rules.md R8), or None for no trump (only
        when ``view.rules.allow_no_trump``). Default: the suit held most, ties by suit order."""
        return max(Suit, key=lambda suit: (sum(card.suit is suit for card in view.hand), -suit.value))

    def observe(self, view: SeatView, events: Sequence[Event]) -> None:
        """Called before :meth:`play` / :meth:`choose_trump` with the public events since
        this seat's previous request (cards played, tricks won, rounds ended...). Default: ignore."""

    def observe_time(self, view: SeatView, last_decision_ms: int | None) -> None:
        """Called before :meth:`play` / :meth:`choose_trump` with the referee-measured time
        of this seat's previous decision in this game, in ms (None on its first). Default:
        ignore."""

    def observe_time_left(self, view: SeatView, time_left: TimeLeft) -> None:
        """Called before :meth:`play` / :meth:`choose_trump` with the time this decision may
        take (:class:`TimeLeft`: ``time_left.deadline_s(share, no_limit_ms)`` is when to answer
        by). Default: ignore."""

    def game_over(self, summary: GameSummary) -> None:
        """Called once a game ends. Default: ignore."""
