"""Issue 23: two bots try to pass a hand through a named kernel keyring.

``send``: at every decision joins the session keyring ``kw-channel`` (created by the first
to ask), lets everyone search and read it, and stores its hand there as the key ``hand``.
``receive``: on its 3rd decision joins ``kw-channel``, searches ``hand`` and reads it, and
reports each step (``ok``, the errno name, or the cards read) as a ``malformed`` fault:
``CHANNEL <json>``."""

import ctypes
import errno
import json
import sys

from onthird import OnThird, serve_misbehaving
from referee.botkit import serve

ADD_KEY, KEYCTL = 248, 250  # x86_64
JOIN_SESSION_KEYRING, SETPERM, SEARCH, READ = 1, 5, 10, 11
EVERYONE = 0x3F3F3F3F
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
told: set[str] = set()


def call(*args: object) -> int:
    result = libc.syscall(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), "")
    return result


def name(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, str(error.errno))


def send(view) -> None:  # type: ignore[no-untyped-def]
    hand = " ".join(str(card) for card in view.hand).encode()
    try:
        ring = call(KEYCTL, JOIN_SESSION_KEYRING, b"kw-channel")
        call(KEYCTL, SETPERM, ring, EVERYONE)
        key = call(ADD_KEY, b"user", b"hand", hand, len(hand), ring)
        call(KEYCTL, SETPERM, key, EVERYONE)
        outcome = "stored"
    except OSError as error:
        outcome = name(error)
    if view.game_id not in told:
        told.add(view.game_id)
        print(f"keyring_bot send: {outcome}", file=sys.stderr, flush=True)


def receive(_view: object) -> None:
    seen: dict[str, str] = {}
    try:
        ring = call(KEYCTL, JOIN_SESSION_KEYRING, b"kw-channel")
        seen["join"] = "ok"
        key = call(KEYCTL, SEARCH, ring, b"user", b"hand", 0)
        seen["search"] = "ok"
        buffer = ctypes.create_string_buffer(256)
        size = call(KEYCTL, READ, key, buffer, 256)
        seen["read"] = buffer.raw[:size].decode(errors="replace")
    except OSError as error:
        seen["error"] = name(error)
    raise RuntimeError("CHANNEL " + json.dumps(seen, sort_keys=True))


class Send(OnThird):
    """Plays as the others, storing its hand in the keyring first at every decision."""

    def play(self, view):  # type: ignore[no-untyped-def]
        send(view)
        return super().play(view)


if sys.argv[1] == "send":
    serve(Send("keyring-send", lambda _view: None))
else:
    serve_misbehaving("keyring-receive", receive)
