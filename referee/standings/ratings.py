"""OpenSkill ratings over game placements (docs/design.md §7). Pure.

One Plackett-Luce model (openskill defaults: mu 25, sigma 25/3); each game is one
update with every seat a one-bot team and ``ranks = placements`` (ties share a rank).
Games are rated in the order given: callers sort them (by fixture) so the ratings are a
function of the set of games.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce


@dataclass(frozen=True)
class Rating:
    """``ordinal = mu - 3 sigma``: a conservative skill estimate, 0 before any game."""

    mu: float
    sigma: float
    ordinal: float


def rate_games(games: Iterable[tuple[Sequence[str], Sequence[int]]], bots: Iterable[str] = ()) -> dict[str, Rating]:
    """Ratings after rating each ``(seats, placements)`` game in order.

    ``bots`` adds names that get the initial rating even without games. A bot that
    holds two seats of one game gets the update of its last seat.

    >>> ratings = rate_games([(("a", "b", "c"), (1, 2, 3))] * 3, bots=["d"])
    >>> {bot: round(rating.mu, 1) for bot, rating in ratings.items()}
    {'d': 25.0, 'a': 32.8, 'b': 26.2, 'c': 16.2}
    >>> ratings["d"]  # no games: the initial rating
    Rating(mu=25.0, sigma=8.333333333333334, ordinal=0.0)
    """
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in bots}
    for seats, placements in games:
        teams = [[ratings.setdefault(name, model.rating(name=name))] for name in seats]
        rated = model.rate(teams, ranks=list(placements))
        for name, team in zip(seats, rated, strict=True):
            ratings[name] = team[0]
    return {name: Rating(r.mu, r.sigma, r.ordinal()) for name, r in ratings.items()}
