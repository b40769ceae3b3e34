"""The README's fairness table is what the schedules really give (regenerated here)."""

from __future__ import annotations

from tests.conftest import REPO

from referee.schedule.fairness import fairness, fairness_markdown
from referee.schedule.make import make_fixtures


def test_readme_fairness_table_is_regenerated() -> None:
    text = (REPO / "README.md").read_text()
    start = text.index("<!-- fairness-table -->\n") + len("<!-- fairness-table -->\n")
    end = text.index("<!-- /fairness-table -->")
    assert text[start:end].strip().splitlines() == fairness_markdown()


def test_round_robin_neighbours_are_within_one_deal() -> None:
    names = [f"bot{i:02d}" for i in range(10)]
    counts = fairness(make_fixtures(names, 4, 1, 2026), names, 4)
    low, high = counts.neighbours
    assert high - low <= 4  # one deal = 4 games; the old fixed seating gave 16-64
    assert counts.pairs[0] == counts.pairs[1] and counts.seats[0] == counts.seats[1]
