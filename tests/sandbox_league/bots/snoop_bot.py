"""Rows 11, 12 and the /proc check: on its 3rd decision it tries to escape and reports
what it saw through its behaviour: it raises ``RuntimeError("SNOOP <json>")``, which the
bot kit answers with gRPC status INTERNAL (fault ``malformed``, the message in its detail).

argv: any of ``read PATH`` (the first line of a file outside its directory), ``list
PATH`` (the names in a folder), ``connect
PORT`` (a TCP connection to 127.0.0.1:PORT), ``proc`` (the processes it can see).
"""

import errno
import json
import os
import socket
import sys

from onthird import serve_misbehaving


def probe(args: list[str]) -> dict[str, object]:
    seen: dict[str, object] = {}
    while args:
        what = args.pop(0)
        if what == "read":
            try:
                with open(args.pop(0), errors="replace") as handle:
                    seen["read"] = "READ " + handle.readline(60).strip()
            except OSError as exc:
                seen["read"] = type(exc).__name__
        elif what == "list":
            try:
                seen["list"] = sorted(os.listdir(args.pop(0)))
            except OSError as exc:
                seen["list"] = type(exc).__name__
        elif what == "connect":
            try:
                with socket.create_connection(("127.0.0.1", int(args.pop(0))), timeout=2) as connection:
                    connection.sendall(b"escaped")
                    seen["connect"] = "CONNECTED"
            except OSError as exc:
                seen["connect"] = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
        elif what == "proc":
            pids = sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())
            others = 0
            for pid in pids:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as handle:
                        cmdline = handle.read()
                except OSError:
                    continue
                if b"snoop_bot.py" not in cmdline and b"bwrap" not in cmdline:
                    others += 1
            seen["proc"] = {"count": len(pids), "max": max(pids), "me": os.getpid(), "others": others}
    return seen


def snoop(_view: object) -> None:
    raise RuntimeError("SNOOP " + json.dumps(probe(sys.argv[1:]), sort_keys=True))


serve_misbehaving("snoop", snoop)
