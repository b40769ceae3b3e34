"""The ``[sandbox]`` settings of a league config (sandbox.md "Limits")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from referee.errors import ConfigError

Mode = Literal["auto", "bwrap", "rlimits", "none"]
MODES: tuple[Mode, ...] = ("auto", "bwrap", "rlimits", "none")

MiB = 1024 * 1024
KiB = 1024


@dataclass(frozen=True)
class SandboxSettings:
    """How bot processes are contained; every limit applies to one bot process and its children.

    - ``mode``: ``auto`` (bwrap where bubblewrap runs, else rlimits), ``bwrap``, ``rlimits``, ``none``.
    - ``memory_mb``: memory (cgroup memory + swap 0; else ``RLIMIT_DATA``, what the bot commits), MiB.
    - ``pids``: processes and threads (cgroup ``pids.max``; else ``RLIMIT_NPROC``).
    - ``cpus``: CPU share (cgroup v2 ``cpu.max``), in CPUs.
    - ``cpu_seconds``: ``RLIMIT_CPU`` backstop for a whole league, s of CPU time.
    - ``open_files``: ``RLIMIT_NOFILE``.
    - ``file_size_mb``: ``RLIMIT_FSIZE``, MiB.
    - ``tmp_mb``: size of the tmpfs ``/tmp`` (bwrap only), MiB.
    - ``home_mb``: size of the tmpfs home ``/bot``, the bot's only other writable place
      (bwrap only; in the rlimits mode the home is a host directory bounded per file only), MiB.
    - ``output_kb``: bytes of stdout and of stderr kept at the head and at the tail of each
      stream in the bot's log, KiB.
    - ``ro_paths``: extra host paths bound read-only at the same path (bwrap only; a relative
      path is taken from the referee's working directory).

    Raises ConfigError (naming the ``[sandbox]`` key) for a value out of range.
    """

    mode: Mode = "auto"
    memory_mb: int = 512
    pids: int = 64
    cpus: float = 1.0
    cpu_seconds: int = 3600
    open_files: int = 256
    file_size_mb: int = 64
    tmp_mb: int = 16
    home_mb: int = 64
    output_kb: int = 64
    ro_paths: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"[sandbox] mode = {self.mode!r}: expected one of {', '.join(MODES)}")
        for key in ("memory_mb", "pids", "cpu_seconds", "open_files", "file_size_mb", "tmp_mb", "home_mb", "output_kb"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"[sandbox] {key} = {value!r}: expected a whole number > 0")
        if not self.cpus > 0:
            raise ConfigError(f"[sandbox] cpus = {self.cpus!r}: expected a number > 0")
        if self.open_files < 16:
            raise ConfigError(f"[sandbox] open_files = {self.open_files}: expected at least 16")
