"""Serve one connection on KWHIST_LISTEN: answer "hello from <uid>" and exit 0."""

import os
import socket

path = os.environ["KWHIST_LISTEN"].removeprefix("unix:")
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(1)
print(f"READY {path}", flush=True)
connection, _ = server.accept()
connection.sendall(f"hello from {os.getuid()}\n".encode())
connection.close()
