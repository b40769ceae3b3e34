"""The raw floor for B1: a Unix-socket server that answers each length-prefixed message
with fixed reply bytes (the serialized Action a bot would send), on one thread.

Frame: 4-byte big-endian length, then the payload. The reply bytes are given in hex on
the command line. Run: ``python bench/bots/raw_echo.py /tmp/raw.sock 0a040802100e``.
"""

from __future__ import annotations

import os
import socket
import struct
import sys


def _read_exact(conn: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return bytes(data)


def main() -> None:
    path, reply_hex = sys.argv[1], sys.argv[2]
    reply = bytes.fromhex(reply_hex)
    framed = struct.pack(">I", len(reply)) + reply
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        with conn:
            try:
                while True:
                    (size,) = struct.unpack(">I", _read_exact(conn, 4))
                    _read_exact(conn, size)
                    conn.sendall(framed)
            except ConnectionError:
                continue


if __name__ == "__main__":
    main()
