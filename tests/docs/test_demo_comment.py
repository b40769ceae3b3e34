"""tournaments/demo.toml's comment on the number of games holds for the file as shipped
(issue 13): its worked figure is the number of fixtures the league has."""

from __future__ import annotations

import re
from math import comb

from referee.config import load_config
from referee.schedule.make import make_fixtures
from tests.conftest import REPO

DEMO = REPO / "tournaments" / "demo.toml"


def test_the_demo_comment_counts_the_games() -> None:
    match = re.search(r"as this\s+#\s+file came: (\d+) x (\d+) x (\d+) = (\d+)\)", DEMO.read_text())
    assert match is not None, "the games comment of demo.toml changed: update this test"
    tables, deals, size, games = (int(group) for group in match.groups())
    config = load_config(DEMO)
    league = config.league
    fixtures = make_fixtures([bot.name for bot in config.bots], league.table_size, league.deals, league.seed, format=league.format)
    assert (tables, deals, size) == (comb(len(config.bots), league.table_size), league.deals, league.table_size)
    assert games == tables * deals * size == len(fixtures)
