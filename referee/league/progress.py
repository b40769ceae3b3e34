"""How far a league is, in one model for every surface (docs/design.md §7): games played of
the planned or budgeted total, the schedule round (movement), the time played over every
run of the league, the time left, and whether it is running or finished and why.

Pure: no I/O and no clock (the caller passes the seconds). :mod:`referee.league.runstate`
keeps the inputs in the results store, so the live display, the plain lines and the web
site (also ``referee serve`` in another process) compute the same numbers.

- A fixed schedule (round-robin, gauntlet; a movement with ``games = N`` and
  ``stop = "budget"``) plans a known number of games.
- A movement with ``minutes = M`` plans the rounds that fit: the current round ends at
  about ``elapsed + games left in it / rate``, and each further round that would end
  within M minutes at the same rate is counted, as the budget decides at every round's
  end (:mod:`referee.league.budget`). The total is an estimate (shown with ``~``), capped
  by ``games = N`` when both are given; ``stop = "separated"`` may end it sooner.

**The rate** of the estimates (:func:`steady_rate`) is the games per second since a
*mark*: the start of the run's second round (a movement: its first round starts the bot
processes), or the first game it stored (any other format). Until a game is stored after
the mark the ETA reads "estimating…": a rate taken over the start-up would promise a
league several times longer than it is. **The time** is one clock for every surface: the
seconds played over every run, each run counted from its command's start (the bots'
start-up included, as the class waits through it) to the end of its last game; once the
league is over it stops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

State = Literal["starting", "running", "finished", "interrupted", "stopped", "unknown"]
StopReason = Literal["schedule done", "games budget", "time budget", "decided", "interrupted"]


@dataclass(frozen=True)
class Plan:
    """How long the league's config says it runs. ``games``: a fixed number of games (None
    when a minutes budget or a sequential stop decides); ``games_per_round``: a movement
    round's games (None for other formats); ``max_rounds``: a movement's ``games = N`` as
    whole rounds; ``minutes``: its time budget; ``may_stop_early``: ``stop = "separated"``."""

    games: int | None = None
    games_per_round: int | None = None
    max_rounds: int | None = None
    minutes: float | None = None
    may_stop_early: bool = False

    @property
    def budget_s(self) -> float | None:
        return None if self.minutes is None else self.minutes * 60.0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: Any) -> Plan | None:
        """The plan stored by :meth:`to_json`; None for anything else."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})
        except TypeError:
            return None


@dataclass(frozen=True)
class LeagueProgress:
    """Where the league is. ``planned``: the games it will play (None when not yet known;
    ``approximate`` when estimated); ``round``: the schedule round being played, 1-based
    (movement only, 0 before the first); ``rounds``: the rounds planned; ``elapsed_s``:
    seconds played over every run; ``eta_s``: seconds left (None when unknown);
    ``state`` and, once it ended, ``reason`` (:data:`StopReason`) and ``line`` (the stop
    line the terminal printed)."""

    done: int
    planned: int | None
    approximate: bool
    round: int | None
    rounds: int | None
    elapsed_s: float
    eta_s: float | None
    state: State
    budget_s: float | None = None
    reason: str | None = None
    line: str | None = None

    @property
    def over(self) -> bool:
        """The league is not running (finished, interrupted, or stopped without a word)."""
        return self.state in ("finished", "interrupted", "stopped")

    @property
    def percent(self) -> float:
        if self.state == "finished":
            return 100.0
        return min(100.0, 100.0 * self.done / self.planned) if self.planned else 0.0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def games_per_second(done: int, games_before: int, session_s: float, elapsed_s: float) -> float | None:
    """The league's rate over the whole run, start-up included: this run's games over this
    run's seconds, else (a resumed league before its first game) all games over all seconds
    played; None when nothing is known. The budget's decisions use it (cautious: the
    start-up makes it low)."""
    if session_s > 0 and done > games_before:
        return (done - games_before) / session_s
    if elapsed_s > 0 and done:
        return done / elapsed_s
    return None


Mark = tuple[int, float]  # (games stored, seconds into the run) when the steady rate's measure began


def steady_rate(done: int, mark: Mark | None, session_s: float) -> float | None:
    """Games per second since ``mark`` (module doc); None before a game is stored after it.

    >>> steady_rate(130, (60, 70.0), 110.0)  # 70 games in the 40 s since round 2 began
    1.75
    >>> steady_rate(60, (60, 70.0), 75.0) is None  # round 2 began, none of its games stored yet
    True
    """
    if mark is None or done <= mark[0] or session_s <= mark[1]:
        return None
    return (done - mark[0]) / (session_s - mark[1])


def league_progress(
    plan: Plan,
    *,
    done: int,
    rounds_started: int,
    elapsed_s: float,
    rate: float | None,
    state: State,
    reason: str | None = None,
    line: str | None = None,
) -> LeagueProgress:
    """The progress of a league of ``plan`` with ``done`` games stored, ``rounds_started``
    movement rounds begun, ``elapsed_s`` seconds played and ``rate`` games per second (the
    steady rate, :func:`steady_rate`; None: no estimate yet). A finished league has
    planned what it played."""
    rounds: int | None = None
    current: int | None = None
    approximate = plan.may_stop_early
    if plan.games_per_round:
        per_round = plan.games_per_round
        current = rounds_started
        rounds = _rounds_planned(plan, done, rounds_started, elapsed_s, rate)
        planned = None if rounds is None else rounds * per_round
        approximate = approximate or plan.minutes is not None
    else:
        planned = plan.games
    if state == "finished":
        planned, approximate, rounds = done, False, current
    eta = None
    if state == "finished":
        eta = 0.0
    elif planned is not None and rate:
        eta = max(0.0, planned - done) / rate
    return LeagueProgress(
        done=done,
        planned=planned,
        approximate=approximate,
        round=current,
        rounds=rounds,
        elapsed_s=elapsed_s,
        eta_s=eta,
        state=state,
        budget_s=plan.budget_s,
        reason=reason,
        line=line,
    )


def _rounds_planned(plan: Plan, done: int, started: int, elapsed_s: float, rate: float | None) -> int | None:
    """The movement rounds the league will play: ``max_rounds``, or those that fit in the
    minutes budget at ``rate`` (at least the rounds started, at least one)."""
    assert plan.games_per_round
    fit: int | None = None
    budget = plan.budget_s
    if budget is not None and rate:
        round_s = plan.games_per_round / rate
        current_ends = elapsed_s + max(0, started * plan.games_per_round - done) / rate
        more = math.floor((budget - current_ends) / round_s + 1e-9) if budget > current_ends else 0
        fit = max(1, started + max(0, more))
    if plan.max_rounds is not None:
        fit = plan.max_rounds if fit is None else min(fit, plan.max_rounds)
    if fit is None:
        return None
    return max(fit, started, 1)


def clock_text(seconds: float | None) -> str:
    """``"2:05"``, ``"1:02:03"``; ``"—"`` when unknown."""
    if seconds is None:
        return "—"
    whole = int(round(max(0.0, seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


STATE_WORDS: dict[str, str] = {
    "starting": "running (starting the bots)",
    "running": "running",
    "finished": "finished",
    "interrupted": "interrupted",
    "stopped": "stopped (no news from the referee)",
    "unknown": "not running",
}


def games_text(progress: LeagueProgress) -> str:
    """``"125/~420 games"``, ``"840/840 games"``, ``"12 games"`` (total unknown)."""
    if progress.planned is None:
        return f"{progress.done:,} games"
    return f"{progress.done:,}/{'~' if progress.approximate else ''}{progress.planned:,} games"


def round_text(progress: LeagueProgress) -> str | None:
    """``"round 3 of ~7"`` (a movement), ``"7 rounds"`` once over; None for other formats."""
    if progress.round is None:
        return None
    if progress.over:
        return f"{progress.round} round{'s' if progress.round != 1 else ''}"
    of = "" if progress.rounds is None else f" of {'~' if progress.approximate else ''}{progress.rounds}"
    return f"round {max(progress.round, 1)}{of}"


def eta_text(progress: LeagueProgress) -> str:
    """``"ETA 6:02"``, ``"ETA ~6:02 (budget 10:00)"``, ``"ETA estimating…"`` (no steady
    rate yet); the end once over: ``"finished: time budget"``."""
    if progress.over:
        return STATE_WORDS[progress.state] + (f": {progress.reason}" if progress.reason and progress.state != "interrupted" else "")
    budget = f" (budget {clock_text(progress.budget_s)})" if progress.budget_s is not None else ""
    if progress.eta_s is None:
        return f"ETA estimating…{budget}"
    return f"ETA {'~' if progress.approximate else ''}{clock_text(progress.eta_s)}{budget}"


def progress_parts(progress: LeagueProgress) -> list[str]:
    """The progress line's parts, the same on every surface: games, round, elapsed, ETA
    (or how it ended)."""
    parts = [games_text(progress)]
    rounds = round_text(progress)
    if rounds:
        parts.append(rounds)
    parts.append(f"elapsed {clock_text(progress.elapsed_s)}")
    parts.append(eta_text(progress))
    return parts
