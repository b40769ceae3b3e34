"""Leagues on a Dask cluster (docs/cluster.md): ``referee run CONFIG --cluster ADDRESS``.

The coordinator (:mod:`referee.cluster.runner`) sends each fixture to the cluster as a Dask
task; a worker (:mod:`referee.cluster.worker`) plays the whole game next to its own
sandboxed bot processes and sends back the record, which the coordinator stores. Bots
travel as hashed archives of their folders (:mod:`referee.cluster.bundle`).

Needs the ``cluster`` extra (``pip install 'knockout-whist-referee[cluster]'``), on the
coordinator and on every worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.errors import ConfigError

if TYPE_CHECKING:
    from referee.cluster.runner import ClusterRunner
    from referee.sandbox import SandboxSettings


def open_cluster(address: str, *, sandbox: SandboxSettings, shared: bool) -> ClusterRunner:
    """A runner on the Dask scheduler at ``address`` (see :class:`ClusterRunner`; close its
    ``client`` when done). ConfigError when Dask is not installed; ClusterError when the
    scheduler cannot be reached."""
    try:
        from referee.cluster.runner import ClusterRunner, connect
    except ImportError as error:
        raise ConfigError(
            f"--cluster needs Dask ({error.name} is not installed): pip install 'knockout-whist-referee[cluster]'"
        ) from None
    return ClusterRunner(connect(address), sandbox=sandbox, shared=shared, owns_client=True)
