"""check-bot's strength line: how a bot scores against the sample bots, with its interval,
from the referee's own standings (:func:`referee.standings.table.compute_standings`).

    against the sample bots over 20 games: +0.31 pts/g [+0.05 – +0.57] (95%)

The figure is the bot's strength (points per game adjusted for table-mates,
docs/design.md §7) above an even share, ``(k - 1) / 2`` at a table of ``k``: 0 is the
average of the sample bots, a positive figure beats them. Each deal is played in every
rotation of the seats, so a change to a bot shows against the same cards (same ``--seed``).
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.game.records import GameRecord
from referee.standings.table import compute_standings
from referee.standings.uncertainty import MIN_UNITS


def strength_line(records: Sequence[GameRecord], bot: str) -> str:
    """The line for ``bot`` over ``records`` (check-bot's games: ``bot`` and the sample bots,
    one table size). Without games, or with too few deals for an interval (fewer than
    ``MIN_UNITS``), it says so and how many games would do.

    >>> from referee.game.records import GameRecord
    >>> def game(deal, rotation, placements):  # bot "me" beside the samples, seats rotated
    ...     seats = ("me", "heuristic", "random")[rotation:] + ("me", "heuristic", "random")[:rotation]
    ...     return GameRecord(game_id=f"g{deal}.{rotation}", league="check-bot", fixture=3 * deal + rotation,
    ...                       table=("heuristic", "me", "random"), deal=deal, rotation=rotation, seats=seats, rules={},
    ...                       seed=deal, first_dealer=0, decks=[], actions=[], faults=[], placements=placements,
    ...                       winner=placements.index(1), knocked_out_round=(), forfeited=())
    >>> strength_line([game(0, 0, (1, 2, 3))], "me")
    'against the sample bots over 1 game: +1.00 pts/g (an interval needs 6 deals: play 16 games or more)'
    >>> games = [game(deal, 0, (1, 2, 3) if deal % 3 else (2, 1, 3)) for deal in range(8)]  # won 5, second 3
    >>> strength_line(games, "me")  # 13 points in 8 games at tables of 3: 1.62 pts/g, 1 is an even share
    'against the sample bots over 8 games: +0.62 pts/g [+0.19 – +1.00] (95%)'
    """
    games = len(records)
    if not games:
        return "against the sample bots: no game played"
    standings = compute_standings(records)
    row = standings.row(bot)
    strength = row.strength
    assert strength is not None  # the bot played every game
    par = (len(records[0].seats) - 1) / 2
    head = f"against the sample bots over {games} game{'s' if games != 1 else ''}: {strength.estimate - par:+.2f} pts/g"
    if strength.low is None or strength.high is None:
        seats = len(records[0].seats)
        return f"{head} (an interval needs {MIN_UNITS} deals: play {seats * (MIN_UNITS - 1) + 1} games or more)"
    return f"{head} [{strength.low - par:+.2f} – {strength.high - par:+.2f}] ({standings.confidence:.0%})"
