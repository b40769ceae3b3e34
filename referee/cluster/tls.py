"""How the coordinator reaches the scheduler safely (docs/cluster.md, "What is trusted"):
``tls://`` with client certificates from Dask's own configuration, checked before
connecting so that a missing file is one line; a plain ``tcp://`` scheduler beyond this
machine gets a warning."""

from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlsplit

# Dask's configuration keys for the coordinator's TLS files, and the variables that set them
TLS_FILES = {
    "distributed.comm.tls.ca-file": "DASK_DISTRIBUTED__COMM__TLS__CA_FILE",
    "distributed.comm.tls.client.cert": "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT",
    "distributed.comm.tls.client.key": "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY",
}
REQUIRED = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")  # the key may be in the cert file
CERTS_SCRIPT = "scripts/cluster-certs.sh"


def tls_problem(address: str) -> str | None:
    """One line when ``address`` is ``tls://`` and the coordinator's CA or certificate is
    not configured, or a configured file cannot be read; None otherwise."""
    if not address.startswith("tls://"):
        return None
    import dask

    missing = [TLS_FILES[key] for key in REQUIRED if not dask.config.get(key, None)]
    if missing:
        return (
            f"--cluster {address}: TLS needs the coordinator's certificate: set {' and '.join(missing)} "
            f"(and {TLS_FILES['distributed.comm.tls.client.key']}); {CERTS_SCRIPT} makes them, see docs/cluster.md"
        )
    for key, variable in TLS_FILES.items():
        path = dask.config.get(key, None)
        if path and not os.access(str(path), os.R_OK):
            return f"--cluster {address}: {variable} = {path}: cannot read it (see docs/cluster.md)"
    return None


def plain_warning(address: str) -> str | None:
    """The warning for a plain ``tcp://`` scheduler that is not on this machine; None for
    ``tls://`` and loopback addresses."""
    parts = urlsplit(address)
    if parts.scheme != "tcp" or _loopback(parts.hostname or ""):
        return None
    return (
        f"warning: {address} is plain tcp: not encrypted, and anyone who can reach it can run any code "
        "on every worker; keep it on the lab's own network, or use tls:// with certificates (docs/cluster.md)"
    )


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    if host == "localhost":
        return True
    try:
        return all(ipaddress.ip_address(info[4][0]).is_loopback for info in socket.getaddrinfo(host, None))
    except (OSError, ValueError):
        return False
