"""``referee run --cluster``: the Dask runner chosen by the command line or ``[cluster]``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.config import LeagueConfig

if TYPE_CHECKING:
    from referee.cluster.runner import ClusterRunner


def open_cluster_runner(config: LeagueConfig, address: str | None) -> ClusterRunner | None:
    """The cluster runner for ``address`` (``--cluster``), else the config's ``[cluster]``
    scheduler; None to play on this machine. Raises ConfigError (no Dask installed) or
    ClusterError (scheduler unreachable). Close it when the league ends."""
    address = address or (config.cluster.scheduler if config.cluster else None)
    if address is None:
        return None
    from referee.cluster import open_cluster

    shared = config.cluster is not None and config.cluster.bots == "shared"
    return open_cluster(address, sandbox=config.sandbox, shared=shared)
