"""Safe by default (docs/cluster.md, "What is trusted"): TLS with client certificates made
by scripts/cluster-certs.sh carries a league; a coordinator without them, or with a file
missing, gets one line; plain tcp beyond this machine gets a warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cluster.tls import plain_warning
from tests.cluster.helpers import BOTS, Scheduler, Worker, free_port
from tests.conftest import REPO, write_config

SCRIPT = REPO / "scripts" / "cluster-certs.sh"


def config_file(tmp: Path) -> Path:
    lines = [
        "[league]", 'name = "tls"', "seed = 3", "table_size = 4", "deals = 1", f'results = "{tmp / "tls.sqlite"}"',
        "[time]", "move_ms = 20000", "grace_ms = 5000", "startup_ms = 120000",
    ]  # fmt: skip
    for name, script in BOTS.items():
        lines += ["[[bots]]", f'name = "{name}"', f'command = ["python", "sample_bots/python/{script}"]']
    return write_config(tmp / "tls.toml", "\n".join(lines) + "\n")


def referee(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items() if not key.startswith("DASK_")}
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=REPO, env=dict(clean, COLUMNS="200", NO_COLOR="1", **env),
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def coordinator_env(certs: Path) -> dict[str, str]:
    env = {}
    for line in (certs / "coordinator.env").read_text().splitlines():
        key, value = line.removeprefix("export ").split("=", 1)
        env[key] = value
    return env


def test_tls_without_the_coordinators_certificate_is_one_line(short_tmp: Path) -> None:
    """Once: a raw ``TypeError: TLS expects a ssl_context`` traceback."""
    done = referee("run", str(config_file(short_tmp)), "--no-live", "--cluster", f"tls://127.0.0.1:{free_port()}", env={})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in line and "cluster-certs.sh" in line, line
    missing = {**coordinator_env_of(short_tmp), "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(short_tmp / "gone.pem")}
    done = referee("run", str(config_file(short_tmp)), "--no-live", "--cluster", f"tls://127.0.0.1:{free_port()}", env=missing)
    assert done.returncode == 2 and "gone.pem: cannot read it" in done.stderr and "Traceback" not in done.stderr, done.stderr


def coordinator_env_of(tmp: Path) -> dict[str, str]:
    (tmp / "ca.pem").write_text("")
    return {"DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(tmp / "ca.pem")}


@pytest.mark.skipif(not os.access("/usr/bin/openssl", os.X_OK), reason="scripts/cluster-certs.sh needs openssl")
def test_a_league_over_tls_with_the_scripts_certificates(short_tmp: Path) -> None:
    certs = short_tmp / "certs"
    made = subprocess.run(["bash", str(SCRIPT), str(certs), "127.0.0.1"], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert oct((certs / "ca.key").stat().st_mode & 0o777) == "0o600"
    tls = ["--tls-ca-file", str(certs / "ca.pem")]
    port = free_port()
    config = config_file(short_tmp)
    with Scheduler(port, short_tmp, protocol="tls", extra=[*tls, "--tls-cert", str(certs / "scheduler.pem"), "--tls-key", str(certs / "scheduler.key")]) as scheduler:
        address = scheduler.listening()
        other = short_tmp / "other"  # a certificate of another CA (a student's): refused
        assert subprocess.run(["bash", str(SCRIPT), str(other)], capture_output=True, timeout=120).returncode == 0
        stranger = referee("run", str(config), "--no-live", "--cluster", address, env=coordinator_env(other))
        assert stranger.returncode == 2 and "cannot reach the Dask scheduler" in stranger.stderr, stranger.stdout + stranger.stderr
        assert "Traceback" not in stranger.stderr and len(stranger.stderr.strip().splitlines()) == 1, stranger.stderr
        worker_tls = [*tls, "--tls-cert", str(certs / "worker.pem"), "--tls-key", str(certs / "worker.key")]
        with Worker(address, short_tmp, "w1", extra=worker_tls):
            done = referee("run", str(config), "--no-live", "--cluster", address, env=coordinator_env(certs))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sandbox bwrap" in done.stdout and "Standings" in done.stdout, done.stdout
    assert "warning: " not in done.stdout  # tls: no plain-tcp warning


def test_plain_tcp_beyond_this_machine_is_warned() -> None:
    assert plain_warning("tcp://127.0.0.1:8786") is None
    assert plain_warning("tcp://localhost:8786") is None
    assert plain_warning("tls://10.0.0.1:8786") is None
    warning = plain_warning("tcp://10.0.0.1:8786")
    assert warning is not None and "anyone who can reach it can run any code on every worker" in warning
