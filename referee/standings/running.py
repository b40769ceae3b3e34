"""Standings kept as games finish (docs/design.md §7). Pure.

:class:`RunningStandings` folds each finished game into the tallies (points, games, units,
faults, decision times, head to head) as it comes: O(1) in the games already folded.
The OpenSkill ratings, which depend on the order of the games (canonical: by fixture, then
game id), are brought up to date when the standings are asked for: from the last point up
to which the canonical order is unchanged (a kept copy every :data:`CHECKPOINT_EVERY`
games), so a game finishing a little out of order costs at most that many games again.
What needs every unit (the fit of the strengths, intervals, rank sets, verdicts) runs only
when the standings are asked for (:func:`referee.standings.table.assemble`).

The standings are those :func:`referee.standings.table.compute_standings` gives for the
same set of games, whatever order they came in: the tallies are sums of halves (exact in
any order), the ratings are taken in canonical order, and a game id seen again (the
record replaced) refolds everything from scratch.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from openskill.models import PlackettLuce

from referee.game.records import GameRecord
from referee.standings.ratings import Rating
from referee.standings.table import PlayedGame, Standings, assemble, tally
from referee.standings.uncertainty import CONFIDENCE
from referee.standings.verdicts import Sequential

CHECKPOINT_EVERY = 64  # games between kept copies of the ratings


def _order(game: PlayedGame) -> tuple[int, str]:
    return (game.fixture, game.game_id)


class RunningStandings:
    """The standings of the games added so far; ``bots`` are listed even without games.
    :meth:`add` is O(1) (amortised; the insertion into the canonical order moves the few
    games that finished later than it); :meth:`standings` costs O(units + games rated
    since the last call).

    >>> from referee.game.records import GameRecord
    >>> def game(number, seats, placements):  # a finished game: what the standings read of it
    ...     return GameRecord(game_id=f"g{number}", league="demo", fixture=number, table=tuple(sorted(seats)), deal=0,
    ...                       rotation=0, seats=seats, rules={}, seed=number, first_dealer=0, decks=[], actions=[],
    ...                       faults=[], placements=placements, winner=placements.index(1), knocked_out_round=(),
    ...                       forfeited=())
    >>> games = [game(1, ("ann", "bo", "cy"), (1, 2, 3)), game(2, ("bo", "cy", "ann"), (2, 1, 2))]
    >>> running = RunningStandings(bots=["ann", "bo", "cy", "dee"])
    >>> for played in reversed(games):  # in any order
    ...     running.add(played)
    >>> [(row.bot, row.points) for row in running.standings().rows]
    [('ann', 2.5), ('cy', 2.0), ('bo', 1.5), ('dee', 0.0)]
    >>> from referee.standings.table import compute_standings
    >>> running.standings() == compute_standings(games, bots=["ann", "bo", "cy", "dee"])
    True
    """

    def __init__(self, bots: Sequence[str] = (), games: Iterable[GameRecord | PlayedGame] = ()) -> None:
        self._bots = tuple(bots)
        self._model = PlackettLuce()
        self._shared: dict[Any, Any] = {}
        self._reset()
        for game in games:
            self.add(game)

    def _reset(self) -> None:
        self._games: dict[str, PlayedGame] = {}
        self._ordered: list[PlayedGame] = []  # canonical order
        self._tallies = tally((), self._bots)
        self._refold = False
        self._rated = 0  # games of _ordered folded into _ratings
        self._ratings: dict[str, Any] = {name: self._model.rating(name=name) for name in self._bots}
        self._checkpoints: list[tuple[int, dict[str, Any]]] = [(0, dict(self._ratings))]

    @property
    def games(self) -> int:
        return len(self._games)

    def add(self, game: GameRecord | PlayedGame) -> None:
        """Fold one finished game in (a record or its summary)."""
        played = game if isinstance(game, PlayedGame) else PlayedGame.of(game, self._shared)
        if played.game_id in self._games:  # replaced: rare, refold everything at the next look
            self._games[played.game_id] = played
            self._refold = True
            return
        self._games[played.game_id] = played
        if self._refold:
            return
        self._tallies.add(played)
        where = bisect.bisect_right(self._ordered, _order(played), key=_order)
        self._ordered.insert(where, played)
        if where < self._rated:  # it sorts before games already rated: rate again from the copy before it
            while self._checkpoints[-1][0] > where:
                self._checkpoints.pop()
            self._rated, kept = self._checkpoints[-1]
            self._ratings = dict(kept)

    def standings(
        self,
        remote: Collection[str] = (),
        withdrawn: Collection[str] = (),
        confidence: float = CONFIDENCE,
        sequential: Sequential | None = None,
    ) -> Standings:
        """The standings of every game added (as :func:`compute_standings` with the same
        arguments would give them)."""
        if self._refold:
            games = list(self._games.values())
            self._reset()
            for game in games:
                self.add(game)
        self.rate()
        ratings = {name: Rating(r.mu, r.sigma, r.ordinal()) for name, r in self._ratings.items()}
        return assemble(self._tallies, ratings, remote=remote, withdrawn=withdrawn, confidence=confidence, sequential=sequential)

    def rate(self) -> None:
        """Bring the ratings up to every game added, in canonical order (as
        :func:`referee.standings.ratings.rate_games` rates them); :meth:`standings` does it
        first."""
        model, ratings = self._model, self._ratings
        for index in range(self._rated, len(self._ordered)):
            game = self._ordered[index]
            teams = [[ratings.setdefault(name, model.rating(name=name))] for name in game.seats]
            rated = model.rate(teams, ranks=list(game.placements))
            for name, team in zip(game.seats, rated, strict=True):
                ratings[name] = team[0]
            if (index + 1) % CHECKPOINT_EVERY == 0:
                self._checkpoints.append((index + 1, dict(ratings)))
        self._rated = len(self._ordered)
