"""People at the table: a seat played by a person through a web page (docs/design.md §3, §5).

A person's seat is a match :class:`~referee.league.match.Player` like a bot's
(:class:`HumanSeat`): the match asks it with the same :class:`DecisionAsk` (the seat's view,
the public events, the legal actions, the clock), waits, and judges the reply it returns,
with the same fallback on a fault, and records it like any other. The reply carries the
``DecisionRequest`` a bot at that seat would have been sent, so ``referee replay --seat N``
shows a person's seat as it shows a bot's.

:class:`People` holds every person of a league or a ``referee play``: their secret (the
link to their seat), which page is theirs (the first browser to open the link keeps it),
whether a page of theirs is open, what their page shows (:class:`Showing`) and their
answer. The web wing (:mod:`referee.web.table`) serves it; the game's thread writes it.

**Time.** A person has no time limit unless their own time control gives one
(``referee play --move-ms``, a config's ``move_ms`` on a ``human = true`` seat).
**Leaving.** A person whose pages are all closed is away; a decision asked while they
are away waits for their return up to :data:`AWAY_S` seconds from the moment they left
(``--away-s``), then is a ``crash`` fault: the seat forfeits that game and the referee
plays it to its end with the fallback, and the league goes on. A person away longer than
that is not waited for at all, game after game, until a page of theirs is open again.
**One table at a time.** A game takes its people's seats before it starts, in name order
(so two games never wait for each other), and gives them back when it ends.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from time import monotonic

import trio

from referee.errors import ConfigError
from referee.game.timecontrol import TimeControl
from referee.game.views import Action, Event, SeatView, parse_action
from referee.transport.codec import request_json, view_to_request
from referee.transport.replies import DecisionAsk, Reply

AWAY_S = 60.0  # how long a decision waits for a person whose page was closed, s (--away-s)
NO_LIMIT = TimeControl(unlimited=True)  # a person's clock unless one is asked for
DELIVER_S = 10.0  # after the last game, how long the referee waits for each open page to be sent its end, s


def person_time(league: TimeControl, move_ms: int | None) -> TimeControl:
    """A person's time control: none (:data:`NO_LIMIT`) unless ``move_ms`` is given, then
    the league's (its grace and bank) with that time per decision, in ms."""
    if move_ms is None:
        return NO_LIMIT
    return replace(league, move_ms=move_ms)


@dataclass(frozen=True)
class Showing:
    """What one person's page shows now: their seat ``seat`` in game ``game_id``, the
    players' ``names``, the seat's ``view`` and the game's public ``events`` so far (all
    of them, oldest first), the decision ``asked`` of them (None while others play) and a
    ``note`` from the referee."""

    game_id: str
    seat: int
    names: tuple[str, ...]
    view: SeatView
    events: tuple[Event, ...]
    asked: DecisionAsk | None = None
    note: str | None = None


@dataclass(eq=False)
class Person:
    """One person: ``name`` as seated by the schedule, ``secret`` of their link, ``time``
    their own time control. The rest is guarded by the lock of their :class:`People`."""

    name: str
    secret: str
    time: TimeControl = NO_LIMIT
    claim: str | None = None  # the cookie of the browser that opened the link first
    pages: int = 0  # event streams open to their page
    arrived: bool = False  # a page of theirs was opened at least once
    away_since: float | None = None  # when their last page closed (monotonic s)
    showing: Showing | None = None
    version: int = 0  # counts changes of what the page shows
    sent: int = -1  # the version last sent to a page of theirs
    asking: int | None = None  # the decision number asked now
    answer: tuple[Action, str] | None = None  # (the action, as the person gave it)
    table: trio.Lock = field(default_factory=trio.Lock)  # one game at a time
    changed: trio.Event = field(default_factory=trio.Event)  # set (and replaced) at each change


class People:
    """The people of a league (or a ``referee play``), by name: ``times[name]`` is that
    person's time control (:data:`NO_LIMIT` for none). ``away_s``: how long a decision waits
    for a person whose pages are closed (:data:`AWAY_S`). ``results``: where the games are
    stored (the page's game-over line says how to replay one)."""

    def __init__(self, times: Mapping[str, TimeControl], *, away_s: float = AWAY_S, results: str | None = None) -> None:
        if away_s < 0:
            raise ConfigError(f"--away-s {away_s:g}: expected a number of seconds >= 0")
        self.away_s = away_s
        self.results = results
        self._people = {name: Person(name, secrets.token_urlsafe(16), time) for name, time in times.items()}
        self._lock = threading.Condition()
        self._token: trio.lowlevel.TrioToken | None = None
        self._stopped = False

    # --- who -----------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return list(self._people)

    def __contains__(self, name: object) -> bool:
        return name in self._people

    def persons(self) -> list[Person]:
        return list(self._people.values())

    def by_secret(self, secret: str) -> Person | None:
        """The person whose link holds ``secret``, else None (compared in constant time)."""
        found = None
        for person in self._people.values():
            if hmac.compare_digest(person.secret.encode(), secret.encode(errors="replace")):
                found = person
        return found

    def claim(self, person: Person, cookie: str | None) -> str | None:
        """The page's right to ``person``'s seat: their cookie, given to the first browser
        that opens their link (a new cookie, returned); the same browser again (``cookie``
        matches: returned). Another browser, or a link opened again after its cookie was
        lost, gets None: a reused link shows nothing."""
        with self._lock:
            if person.claim is None:
                person.claim = secrets.token_urlsafe(16)
                return person.claim
            if cookie is not None and hmac.compare_digest(person.claim.encode(), cookie.encode(errors="replace")):
                return person.claim
            return None

    def holds(self, person: Person, cookie: str | None) -> bool:
        """Whether ``cookie`` is the one that claimed ``person``'s seat."""
        with self._lock:
            return person.claim is not None and cookie is not None and hmac.compare_digest(person.claim.encode(), cookie.encode(errors="replace"))

    # --- presence --------------------------------------------------------------------

    def opened(self, person: Person) -> None:
        """A page of ``person`` is open (its event stream connected)."""
        self._bind()
        with self._lock:
            person.pages += 1
            person.arrived = True
            person.away_since = None
            self._lock.notify_all()

    def closed(self, person: Person) -> None:
        """A page of ``person`` closed (its event stream ended)."""
        with self._lock:
            person.pages = max(0, person.pages - 1)
            if person.pages == 0:
                person.away_since = monotonic()
            self._lock.notify_all()

    def missing(self) -> list[str]:
        """The people who have not opened their link yet."""
        with self._lock:
            return [person.name for person in self._people.values() if not person.arrived]

    async def everyone_here(self, say: Callable[[str], object], *, poll_s: float = 0.1) -> None:
        """Wait until every person has opened their link; ``say`` who is awaited, once."""
        self._bind()
        if missing := self.missing():
            say(f"waiting for {', '.join(missing)} to open {'their links' if len(missing) > 1 else 'the link'} (Ctrl-C to stop)")
        while self.missing():
            await trio.sleep(poll_s)

    # --- what the page shows ----------------------------------------------------------

    async def next_showing(self, person: Person, version: int, timeout_s: float) -> tuple[int, Showing | None]:
        """-> (version, what ``person``'s page shows) once it differs from ``version``, or
        after ``timeout_s`` seconds as it is (the page's stream sends a keep-alive then)."""
        self._bind()
        with trio.move_on_after(timeout_s):
            while True:
                with self._lock:
                    if person.version != version:
                        return person.version, person.showing
                    changed = person.changed
                await changed.wait()
        with self._lock:
            return person.version, person.showing

    def sent(self, person: Person, version: int) -> None:
        """A page of ``person`` was sent what they see at ``version``."""
        with self._lock:
            person.sent = max(person.sent, version)

    async def delivered(self, timeout_s: float, *, poll_s: float = 0.05) -> bool:
        """Wait up to ``timeout_s`` seconds until every person with a page open has been
        sent what they see now (the end of the last game); -> whether all were."""
        with trio.move_on_after(timeout_s):
            while True:
                with self._lock:
                    if all(person.sent >= person.version for person in self._people.values() if person.pages):
                        return True
                await trio.sleep(poll_s)
        return False

    def answer(self, person: Person, number: int, text: str) -> str:
        """The person's answer to decision ``number``: ``"ok"`` (handed to the waiting
        match, which judges it), ``"stale"`` (no such decision is asked now) or ``"bad"``
        (not an action's text: a card ``AS``, ``trump H``, ``pass``)."""
        try:
            action = parse_action(text)
        except ConfigError:
            return "bad"
        with self._lock:
            if person.asking != number or person.answer is not None:
                return "stale"
            person.answer = (action, text)
            self._lock.notify_all()
        return "ok"

    # --- seating (trio) ---------------------------------------------------------------

    @asynccontextmanager
    async def seated(self, game_id: str, seats: Sequence[str]) -> AsyncIterator[dict[int, HumanSeat]]:
        """The people among ``seats`` (the fixture's names, in seat order) as players of game
        ``game_id``: seat -> :class:`HumanSeat`. Waits until each is free of any other game,
        taking them in name order; gives them back on exit."""
        self._bind()
        mine = {seat: self._people[name] for seat, name in enumerate(seats) if name in self._people}
        async with AsyncExitStack() as stack:
            for person in sorted(set(mine.values()), key=lambda person: person.name):
                await stack.enter_async_context(person.table)
            yield {seat: HumanSeat(self, person, game_id, seat, tuple(seats)) for seat, person in mine.items()}

    def stop(self) -> None:
        """The league stops: every decision waiting for a person ends at once."""
        with self._lock:
            self._stopped = True
            self._lock.notify_all()

    # --- internals (any thread) ---------------------------------------------------------

    def _bind(self) -> None:
        """Remember the trio run to wake the pages in (when called from trio)."""
        if self._token is None:
            try:
                self._token = trio.lowlevel.current_trio_token()
            except RuntimeError:  # not in trio: nothing to wake yet
                pass

    def _show(self, person: Person, showing: Showing) -> None:
        """``person``'s page shows ``showing`` now (the lock held)."""
        person.showing = showing
        person.version += 1
        if self._token is not None:
            try:
                self._token.run_sync_soon(self._wake, person)
            except trio.RunFinishedError:
                pass

    @staticmethod
    def _wake(person: Person) -> None:  # in trio
        changed, person.changed = person.changed, trio.Event()
        changed.set()


class HumanSeat:
    """A person at one seat of one game: a match :class:`~referee.league.match.Player`.

    :meth:`decide` shows the decision on the person's page and waits for their answer:
    up to the ask's deadline when their time control has one (then a ``timeout``), and while
    they are away up to :attr:`People.away_s` from when they left (then a ``crash``).
    :meth:`show` is the game's thread telling the page what the seat sees after each move."""

    def __init__(self, people: People, person: Person, game_id: str, seat: int, names: tuple[str, ...]) -> None:
        self.name = person.name
        self.seat = seat
        self.time = person.time  # the person's own time control (the match's seat_time)
        self._people = people
        self._person = person
        self._game_id = game_id
        self._names = names
        self._events: tuple[Event, ...] = ()
        self._note: str | None = None

    def show(self, view: SeatView, events: Sequence[Event]) -> None:
        """What the seat sees now (on the game's thread, after each move): ``view`` and the
        game's public ``events`` so far."""
        with self._people._lock:
            self._events = tuple(events)
            self._people._show(self._person, Showing(self._game_id, self.seat, self._names, view, self._events, None, self._note))

    def decide(self, ask: DecisionAsk) -> Reply:
        """Ask the person (blocking); never raises for their fault. ``ms``: from showing the
        decision to their answer, on a monotonic clock."""
        people, person = self._people, self._person
        started = monotonic()
        request = view_to_request(ask.view, ask.events, ask.number, ask.time_left_ms, ask.bank_left_ms, ask.last_decision_ms)

        def reply(action: Action | None, fault: str | None, detail: str, answer: str) -> Reply:
            ms = (monotonic() - started) * 1000
            return Reply(action, fault, detail, request, answer, ms, render_request=lambda: request_json(request))  # type: ignore[arg-type]

        deadline = None if ask.deadline_s is None else started + ask.deadline_s
        with people._lock:
            person.asking, person.answer = ask.number, None
            people._show(person, Showing(self._game_id, self.seat, self._names, ask.view, self._events, ask, self._note))
            try:
                while True:
                    if person.answer is not None:
                        action, text = person.answer
                        return reply(action, None, "", text)
                    if people._stopped:
                        return reply(None, "crash", "the league was stopped", "")
                    now = monotonic()
                    if deadline is not None and now >= deadline:
                        self._note = "Your time ran out: the referee played for you (its fallback move)."
                        return reply(None, "timeout", f"no answer within {ask.deadline_s * 1000:,.0f} ms", "")  # type: ignore[operator]
                    away_until = None if person.pages or person.away_since is None else person.away_since + people.away_s
                    if away_until is not None and now >= away_until:
                        self._note = "You left the table: the referee plays your seat to the end of this game."
                        return reply(None, "crash", f"{self.name} left the table: no page open for {now - person.away_since:,.0f} s", "the page was closed")  # type: ignore[operator]
                    wake = [moment for moment in (deadline, away_until) if moment is not None]
                    people._lock.wait(min(wake) - now if wake else None)
            finally:
                person.asking, person.answer = None, None
                people._show(person, Showing(self._game_id, self.seat, self._names, ask.view, self._events, None, self._note))

    def exit_detail(self) -> str | None:
        """Why the person is not there (their pages closed), or None while a page is open."""
        with self._people._lock:
            person = self._person
            if person.pages or person.away_since is None:
                return None
            return f"no page of theirs open for {monotonic() - person.away_since:,.0f} s"
