"""People's seats named on the command line (``you``, ``human:NAME``) and in a config
(``[[bots]] human = true``): what is accepted, and one line for what is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli.botspec import parse_bots
from referee.config import load_config
from referee.errors import ConfigError
from tests.conftest import REPO, run_referee

SAMPLE = REPO / "sample_bots" / "python" / "heuristic_bot.py"


def config(tmp_path: Path, person: str) -> Path:
    path = tmp_path / "people.toml"
    path.write_text(
        '[league]\nname = "class"\ntable_size = 3\n\n[[bots]]\nname = "ann"\n' + person
        + f'\n[[bots]]\nname = "h1"\ncommand = ["python", "{SAMPLE}"]\n\n[[bots]]\nname = "h2"\ncommand = ["python", "{SAMPLE}"]\n'
    )  # fmt: skip
    return path


def test_a_config_seats_people_with_or_without_a_clock(tmp_path: Path) -> None:
    loaded = load_config(config(tmp_path, "human = true\n"))
    ann = loaded.bot("ann")
    assert ann.human and ann.command == () and ann.address is None and ann.move_ms is None
    assert not loaded.bot("h1").human
    timed = load_config(config(tmp_path, "human = true\nmove_ms = 30000\n"))
    assert timed.bot("ann").move_ms == 30000
    assert timed.fingerprint != loaded.fingerprint, "a person's clock shapes the results"


@pytest.mark.parametrize(
    ("person", "words"),
    [
        ('human = true\ncommand = ["python", "x.py"]\n', 'bot "ann": command: a seat with human = true is played by a person'),
        ('human = true\naddress = "127.0.0.1:5000"\n', 'bot "ann": address: a seat with human = true'),
        (f'command = ["python", "{SAMPLE}"]\nmove_ms = 500\n', "bot \"ann\": move_ms: move_ms here is a person's clock"),
        ("human = true\nmove_ms = 0\n", "move_ms"),
        ('human = "yes"\n', "human"),
    ],
)
def test_a_bad_person_seat_is_one_line(tmp_path: Path, person: str, words: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(config(tmp_path, person))
    assert words in str(error.value) and "\n" not in str(error.value)


def test_you_and_human_name_seat_people_on_the_command_line() -> None:
    bots = parse_bots(["you", "human:ann", "heuristic", "you"])
    assert [(bot.name, bot.human) for bot in bots] == [("you", True), ("ann", True), ("heuristic", False), ("you-2", True)]
    with pytest.raises(ConfigError, match="human:NAME"):
        parse_bots(["human:a b"])


def test_a_league_with_people_is_not_played_on_a_cluster(tmp_path: Path) -> None:
    path = config(tmp_path, "human = true\n")
    path.write_text(path.read_text() + '\n[cluster]\nscheduler = "tcp://127.0.0.1:1"\n')
    done = run_referee("run", str(path), "--no-live", "--results", str(tmp_path / "r.sqlite"), timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "a league with people (human = true) is played on this machine, not on a cluster" in done.stdout + done.stderr
