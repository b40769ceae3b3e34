"""Issue 23: two bots try to pass a hand through the kernel's named IPC objects, which
bubblewrap's IPC and network namespaces keep apart: System V shared memory and message
queues, a POSIX message queue, an abstract Unix socket.

``send``: at its first decision of a game puts its hand in each (key ``0x4b570017``, ``/kw-channel``,
``@kw-channel``). ``receive``: on its 3rd decision reads each and reports what it got (the
cards, or the errno name) as a ``malformed`` fault: ``CHANNEL <json>``."""

import ctypes
import errno
import json
import os
import socket
import sys
import threading

from onthird import OnThird, serve_misbehaving
from referee.botkit import serve

KEY, NAME, ABSTRACT = 0x4B570017, b"/kw-channel", "\0kw-channel"
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
hand = [b""]
told: set[str] = set()


def fail() -> str:
    return errno.errorcode.get(ctypes.get_errno(), "?")


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]


def publish(text: bytes) -> str:
    outcomes = []
    shm = libc.shmget(KEY, 64, IPC_CREAT | 0o666)
    if shm >= 0:
        ctypes.memmove(libc.shmat(shm, None, 0), text.ljust(64, b"\0"), 64)
    outcomes.append(f"shm {'ok' if shm >= 0 else fail()}")
    queue = libc.msgget(KEY, IPC_CREAT | 0o666)
    sent = queue >= 0 and libc.msgsnd(queue, ctypes.byref(Message(1, text)), 64, IPC_NOWAIT) == 0
    outcomes.append(f"msg {'ok' if sent else fail()}")
    mq = libc.mq_open(NAME, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o666, None)
    sent = mq >= 0 and libc.mq_send(mq, text, len(text), 0) == 0
    outcomes.append(f"mq {'ok' if sent else fail()}")
    if mq >= 0:
        libc.mq_close(mq)
    return ", ".join(outcomes)


def serve_abstract() -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(ABSTRACT)
    server.listen()
    while True:
        connection, _ = server.accept()
        with connection:
            connection.sendall(hand[0])


class Send(OnThird):
    """Plays as the others, publishing its hand at its first decision of a game."""

    def play(self, view):  # type: ignore[no-untyped-def]
        hand[0] = " ".join(str(card) for card in view.hand).encode()
        if view.game_id not in told:
            told.add(view.game_id)
            print(f"ipc_bot send: {publish(hand[0])}", file=sys.stderr, flush=True)
        return super().play(view)


def receive(_view: object) -> None:
    seen: dict[str, str] = {}
    shm = libc.shmget(KEY, 0, 0)
    seen["shm"] = ctypes.string_at(libc.shmat(shm, None, 0), 64).rstrip(b"\0").decode() if shm >= 0 else fail()
    queue = libc.msgget(KEY, 0)
    message = Message()
    got = libc.msgrcv(queue, ctypes.byref(message), 64, 0, IPC_NOWAIT) if queue >= 0 else -1
    seen["msg"] = message.mtext.decode() if got >= 0 else fail()
    mq = libc.mq_open(NAME, os.O_RDONLY | os.O_NONBLOCK)
    buffer = ctypes.create_string_buffer(8192)
    got = libc.mq_receive(mq, buffer, 8192, None) if mq >= 0 else -1
    seen["mq"] = buffer.raw[:got].decode() if got >= 0 else fail()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(2)
            client.connect(ABSTRACT)
            seen["abstract"] = client.recv(64).decode()
    except OSError as error:
        seen["abstract"] = errno.errorcode.get(error.errno or 0, type(error).__name__)
    raise RuntimeError("CHANNEL " + json.dumps(seen, sort_keys=True))


if sys.argv[1] == "send":
    threading.Thread(target=serve_abstract, daemon=True).start()
    serve(Send("ipc-send", lambda _view: None))
else:
    serve_misbehaving("ipc-receive", receive)
