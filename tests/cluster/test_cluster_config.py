"""The ``[cluster]`` section: where a league is played, never what (not in the fingerprint)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli.cluster import open_cluster_runner
from referee.config import load_config
from referee.errors import ConfigError

BASE = """
[league]
table_size = 2
[[bots]]
name = "alpha"
command = ["python", "bot.py"]
dir = "{dir}"
[[bots]]
name = "beta"
command = ["python", "bot.py"]
dir = "{dir}"
"""


def write(tmp_path: Path, extra: str) -> Path:
    (tmp_path / "bot.py").write_text("")
    path = tmp_path / "night.toml"
    path.write_text(BASE.format(dir=tmp_path) + extra)
    return path


def test_cluster_section_is_read_and_leaves_the_fingerprint_alone(tmp_path: Path) -> None:
    plain = load_config(write(tmp_path, ""))
    assert plain.cluster is None
    clustered = load_config(write(tmp_path, '[cluster]\nscheduler = "tcp://lab-01:8786"\nbots = "shared"\n'))
    assert clustered.cluster is not None
    assert (clustered.cluster.scheduler, clustered.cluster.bots) == ("tcp://lab-01:8786", "shared")
    assert clustered.fingerprint == plain.fingerprint  # a league may be resumed on or off the cluster
    assert load_config(write(tmp_path, '[cluster]\nscheduler = "tls://lab-01:8786"\n')).cluster.bots == "archive"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ('[cluster]\nscheduler = "lab-01:8786"\n', "cluster.scheduler"),
        ('[cluster]\nscheduler = "tcp://lab-01:8786"\nbots = "nfs"\n', "cluster.bots"),
        ("[cluster]\nbots = \"shared\"\n", "cluster.scheduler"),
        ('[cluster]\nscheduler = "tcp://lab-01:8786"\nworkers = 3\n', "cluster.workers"),
    ],
)
def test_a_bad_cluster_section_is_one_line_naming_the_key(tmp_path: Path, extra: str, key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(write(tmp_path, extra))
    assert key in str(raised.value)
    assert "\n" not in str(raised.value)


def test_no_cluster_asked_plays_on_this_machine(tmp_path: Path) -> None:
    assert open_cluster_runner(load_config(write(tmp_path, "")), None) is None
