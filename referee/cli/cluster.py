"""``referee run --cluster``: the Dask runner chosen by the command line or ``[cluster]``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from referee.config import LeagueConfig

if TYPE_CHECKING:
    from referee.cluster.runner import ClusterRunner


def cluster_address(config: LeagueConfig, address: str | None) -> str | None:
    """The scheduler's address: ``--cluster``, else the config's ``[cluster]``; None to play
    on this machine."""
    return address or (config.cluster.scheduler if config.cluster else None)


def open_cluster_runner(
    config: LeagueConfig, address: str | None, say: Callable[[str], None] | None = None
) -> ClusterRunner | None:
    """The cluster runner for ``address`` (``--cluster``), else the config's ``[cluster]``
    scheduler; None to play on this machine. ``say`` prints the runner's lines (each
    worker's sandbox as it joins, workers lost, waiting). Raises ConfigError (no Dask
    installed) or ClusterError (scheduler unreachable, TLS not set up). Close it when the
    league ends."""
    address = cluster_address(config, address)
    if address is None:
        return None
    from referee.cluster import open_cluster

    shared = config.cluster is not None and config.cluster.bots == "shared"
    return open_cluster(address, sandbox=config.sandbox, shared=shared, say=say)
