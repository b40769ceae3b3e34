"""A bot's stdout and stderr, drained continuously into a capped log (sandbox.md "Limits").

One daemon thread per bot reads both pipes as the bot writes them (never ``communicate()``).
Per stream the first ``cap`` bytes go to the log as they arrive (so ``tail -f`` shows a bot
starting); the last ``cap`` bytes are kept in memory and written when the stream is finished;
everything in between is counted and dropped. The referee's memory stays flat whatever a bot
prints. The log ends with one line per stream: ``[stdout: 1073741824 bytes, 1073610752 dropped]``.
"""

from __future__ import annotations

import os
import select
import threading
from pathlib import Path
from typing import BinaryIO

CHUNK = 64 * 1024
LINE_MAX = 4096


class StreamCapture:
    """The kept head and tail of one stream, and byte counts. Thread-safe."""

    def __init__(self, name: str, cap: int) -> None:
        self.name = name
        self.cap = cap
        self.total = 0
        self.head = bytearray()
        self.tail = bytearray()
        self.lock = threading.Lock()

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def add(self, data: bytes) -> bytes:
        """Count ``data``; return the part that belongs to the head (to write to the log now)."""
        with self.lock:
            self.total += len(data)
            room = self.cap - len(self.head)
            to_head, rest = data[: max(room, 0)], data[max(room, 0) :]
            self.head += to_head
            if rest:
                self.tail += rest
                if len(self.tail) > self.cap:
                    del self.tail[: len(self.tail) - self.cap]
            return to_head

    def head_text(self, max_bytes: int) -> str:
        with self.lock:
            return bytes(self.head[:max_bytes]).decode(errors="replace")

    def tail_text(self, max_bytes: int) -> str:
        """The last ``max_bytes`` bytes seen (from the tail, else the head)."""
        with self.lock:
            data = bytes(self.head + self.tail) if not self.dropped else bytes(self.tail)
            return data[-max_bytes:].decode(errors="replace")


PREVIOUS_SUFFIX = ".previous"


class OutputLog:
    """Drains a bot's stdout and stderr pipes into ``log_path``, a log of this run only: a
    log of the same name left by an earlier run is moved to ``<log_path>.previous`` (one
    earlier run is kept), so that an old panic never heads the log of a fixed bot.

    ``start(stdout_fd, stderr_fd)`` takes ownership of both pipe ends (read side) and closes
    them; ``finish(wait_s)`` waits up to ``wait_s`` s for both streams to end (then stops
    reading anyway: a process that escaped could hold a pipe open), writes the kept tails
    and the summary lines, and closes the log. Idempotent.
    """

    def __init__(self, log_path: Path, cap_bytes: int) -> None:
        self.path = log_path
        self.stdout = StreamCapture("stdout", cap_bytes)
        self.stderr = StreamCapture("stderr", cap_bytes)
        if log_path.exists():
            os.replace(log_path, log_path.with_name(log_path.name + PREVIOUS_SUFFIX))
        self._file: BinaryIO | None = open(log_path, "xb", buffering=0)
        os.chmod(log_path, 0o600)
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._finished = False

    def note(self, line: str) -> None:
        """Append one line of the referee's own (e.g. the command) to the log."""
        self._append(f"[referee] {line}\n".encode())

    def _append(self, data: bytes) -> None:
        with self._write_lock:
            if self._file is not None and data:
                self._file.write(data)

    def start(self, stdout_fd: int, stderr_fd: int) -> None:
        thread = threading.Thread(
            target=self._drain,
            args=({stdout_fd: self.stdout, stderr_fd: self.stderr},),
            name=f"drain-{self.path.name}",
            daemon=True,
        )
        thread.start()
        self._threads.append(thread)

    def _drain(self, streams: dict[int, StreamCapture]) -> None:
        poller = select.poll()
        for fd in streams:
            poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        pending = {fd: bytearray() for fd in streams}  # partial lines: held back so the streams interleave by lines
        live = set(streams)
        try:
            while live and not self._stop.is_set():
                for fd, _event in poller.poll(200):
                    try:
                        data = os.read(fd, CHUNK)
                    except InterruptedError:
                        continue
                    except OSError:
                        data = b""
                    if not data:  # end of this stream
                        poller.unregister(fd)
                        live.discard(fd)
                        self._end(fd, pending[fd])
                        continue
                    head = streams[fd].add(data)
                    held = pending[fd]
                    held += head
                    cut = held.rfind(b"\n") + 1
                    if len(head) < len(data) or len(held) >= LINE_MAX:
                        cut = len(held)  # the head is full, or a very long line
                    if cut:
                        self._append(bytes(held[:cut]))
                        del held[:cut]
        finally:
            for fd in live:
                self._end(fd, pending[fd])

    def _end(self, fd: int, held: bytearray) -> None:
        self._append(bytes(held))
        os.close(fd)

    def wait(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` s for both streams to end; True when they have."""
        for thread in self._threads:
            thread.join(timeout_s)
        return not any(thread.is_alive() for thread in self._threads)

    def finish(self, wait_s: float = 2.0) -> None:
        if self._finished:
            return
        self._finished = True
        if not self.wait(wait_s):
            self._stop.set()
            self.wait(1.0)
        summary = []
        for capture in (self.stdout, self.stderr):
            with capture.lock:
                tail, dropped, total = bytes(capture.tail), capture.dropped, capture.total
            if tail:
                if dropped:
                    self._append(f"\n[{capture.name}: {dropped} bytes dropped; the last {len(tail)} follow]\n".encode())
                self._append(tail)
            summary.append(f"[{capture.name}: {total} bytes, {dropped} dropped]")
        self._append(("\n" + "\n".join(summary) + "\n").encode())
        with self._write_lock:
            if self._file is not None:
                self._file.close()
                self._file = None
