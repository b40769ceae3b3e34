"""The web commands' bad input: one line naming what to fix, exit code 2, no traceback."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.conftest import run_referee


def test_serve_without_results_names_the_file(tmp_path: Path) -> None:
    done = run_referee("serve", str(tmp_path / "none.sqlite"), "--port", "0")
    assert done.returncode == 2
    assert "no results at" in done.stderr and "Traceback" not in done.stderr


def test_export_refuses_other_formats(tmp_path: Path) -> None:
    done = run_referee("export", str(tmp_path / "none.sqlite"), "--format", "pdf", str(tmp_path / "site"))
    assert done.returncode == 2
    assert "invalid choice" in done.stderr


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    from referee.results.store import ResultsStore

    ResultsStore.open(tmp_path / "r.sqlite", league="x", fingerprint="f", config_text="", resume=False).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run_referee("serve", str(tmp_path / "r.sqlite"), f"127.0.0.1:{port}")
    assert done.returncode == 2, done.stderr
    assert f"cannot serve the site on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def test_run_with_a_bad_serve_address_stops_before_any_game(tmp_path: Path) -> None:
    config = tmp_path / "l.toml"
    config.write_text(
        f'[league]\nname = "x"\ntable_size = 2\nresults = "{tmp_path / "x.sqlite"}"\n'
        '[[bots]]\nname = "a"\ncommand = ["python", "sample_bots/python/random_bot.py"]\n'
        '[[bots]]\nname = "b"\ncommand = ["python", "sample_bots/python/random_bot.py"]\n'
    )
    done = run_referee("run", str(config), "--no-live", "--serve", "host:port")
    assert done.returncode == 2
    assert "expected [HOST:]PORT" in done.stderr and "Traceback" not in done.stderr
