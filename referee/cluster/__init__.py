"""Leagues on a Dask cluster (docs/cluster.md): ``referee run CONFIG --cluster ADDRESS``.

The coordinator (:mod:`referee.cluster.runner`) sends each fixture to a worker that proved
it can run the league (:mod:`referee.cluster.fleet` decides which) as a Dask task; a worker
(:mod:`referee.cluster.worker`) plays the whole game next to its own sandboxed bot
processes and sends back the record, which the coordinator stores. Bots travel as hashed
archives of their folders (:mod:`referee.cluster.bundle`); :mod:`referee.cluster.tls`
checks the way to the scheduler.

Needs the ``cluster`` extra (``pip install 'knockout-whist-referee[cluster]'``), on the
coordinator and on every worker.

Beside the web site, below cli: it imports the league, the schedule, the sandbox, the game
and errors (and Dask); never report, web or cli. The league never imports it: the runner
plugs into the league loop through a Protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from referee.errors import ConfigError

if TYPE_CHECKING:
    from referee.cluster.runner import ClusterRunner
    from referee.sandbox import SandboxSettings


def open_cluster(
    address: str, *, sandbox: SandboxSettings, shared: bool, say: Callable[[str], None] | None = None
) -> ClusterRunner:
    """A runner on the Dask scheduler at ``address`` (see :class:`ClusterRunner`; close it
    when done); ``say`` prints its lines, first the warning for a plain ``tcp://`` scheduler
    beyond this machine. ConfigError when Dask is not installed; ClusterError when the
    scheduler cannot be reached or TLS is not set up."""
    try:
        from referee.cluster.runner import ClusterRunner, connect
    except ImportError as error:
        raise ConfigError(
            f"--cluster needs Dask ({error.name} is not installed): pip install 'knockout-whist-referee[cluster]'"
        ) from None
    from referee.cluster.tls import plain_warning

    warning = plain_warning(address)
    if warning is not None and say is not None:
        say(warning)
    return ClusterRunner(connect(address), sandbox=sandbox, shared=shared, owns_client=True, say=say)
