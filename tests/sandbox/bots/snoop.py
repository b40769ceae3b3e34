"""Try to escape: read argv[1], connect to 127.0.0.1:argv[2], list /proc. Print JSON."""
import json
import os
import socket
import sys

report: dict[str, object] = {}
try:
    with open(sys.argv[1]) as handle:
        report["read"] = "READ " + handle.read()
except OSError as exc:
    report["read"] = type(exc).__name__
try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=3) as connection:
        connection.sendall(b"escaped")
        report["connect"] = "CONNECTED"
except OSError as exc:
    report["connect"] = type(exc).__name__
report["proc"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
report["pid"] = os.getpid()
print("REPORT " + json.dumps(report), flush=True)
