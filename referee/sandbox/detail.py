"""How a bot process ended, in one phrase naming the limit it hit where that can be told.

Pure: the exit status, the mode, the limits, the kept end of stderr and the cgroup's event
counters in; a phrase out (``killed by signal SIGKILL: memory limit 512 MiB reached (the
config's [sandbox] memory_mb)``): which limit, its value, and the key that changes it.
"""

from __future__ import annotations

import signal

from referee.sandbox.settings import SandboxSettings

# stderr phrases naming a limit when the process ended by an exception rather than a signal
# (Python ignores SIGXFSZ and turns ENOMEM, EMFILE, EAGAIN into exceptions)
# (Python, C++, Node and Go, a JVM's heap, a JVM that cannot commit memory, a Node Buffer)
MEMORY_WORDS = (
    "MemoryError", "std::bad_alloc", "out of memory", "Cannot allocate memory", "OutOfMemoryError",
    "insufficient memory", "Could not reserve enough space", "Array buffer allocation failed", "Fatal process OOM",
)  # fmt: skip
FSIZE_WORDS = ("File too large",)
NOFILE_WORDS = ("Too many open files",)
PIDS_WORDS = ("can't start new thread", "Resource temporarily unavailable")


def signal_of(code: int, mode: str) -> int | None:
    """The signal that ended the bot: ``-N`` from Popen; under bwrap also ``128 + N``, which is
    how bwrap reports a child killed by signal N."""
    if code < 0:
        return -code
    if mode == "bwrap" and 128 < code < 128 + signal.NSIG:
        return code - 128
    return None


def limit_reasons(
    signum: int | None, settings: SandboxSettings, stderr_tail: str, *, oom_kills: int = 0, pids_hits: int = 0
) -> list[str]:
    """The limits that the evidence says were reached, in a fixed order, each with the
    ``[sandbox]`` key of the config that sets it."""
    reasons: list[str] = []
    if signum == signal.SIGXCPU:
        reasons.append(f"CPU time limit {settings.cpu_seconds} s reached{_key('cpu_seconds')}")
    if signum == signal.SIGXFSZ or any(word in stderr_tail for word in FSIZE_WORDS):
        reasons.append(f"file size limit {settings.file_size_mb} MiB reached{_key('file_size_mb')}")
    if oom_kills or any(word in stderr_tail for word in MEMORY_WORDS):
        reasons.append(f"memory limit {settings.memory_mb} MiB reached{_key('memory_mb')}")
    if any(word in stderr_tail for word in NOFILE_WORDS):
        reasons.append(f"open files limit {settings.open_files} reached{_key('open_files')}")
    if pids_hits or any(word in stderr_tail for word in PIDS_WORDS):
        reasons.append(f"process limit {settings.pids} reached{_key('pids')}")
    return reasons


KEY_MARK = " (the config's [sandbox] "


def _key(name: str) -> str:
    return f"{KEY_MARK}{name})"


def names_a_limit(detail: str) -> bool:
    """Whether ``detail`` (from :func:`describe_exit`) names a limit the bot reached."""
    return KEY_MARK in detail


def telling_lines(text: str) -> list[str]:
    """The lines of ``text`` (a bot's stderr) that say something, stripped: not blank, not a
    frame of ``#`` or ``-`` (a JVM's and V8's fatal errors come framed by lines of ``#``).

    >>> telling_lines("\\n#\\n# Fatal process OOM in Failed to reserve virtual memory\\n#\\n")
    ['# Fatal process OOM in Failed to reserve virtual memory']
    """
    return [line.strip() for line in text.splitlines() if line.strip().strip("#-=* ")]


def describe_exit(
    code: int, mode: str, settings: SandboxSettings, stderr_tail: str, *, oom_kills: int = 0, pids_hits: int = 0
) -> str:
    """``exited with code N`` or ``killed by signal NAME``, then ``: <limit> reached`` for each
    limit the evidence names (``oom_kills``, ``pids_hits``: the cgroup's event counters)."""
    signum = signal_of(code, mode)
    if signum is None:
        head = f"exited with code {code}"
    else:
        try:
            head = f"killed by signal {signal.Signals(signum).name}"
        except ValueError:
            head = f"killed by signal {signum}"
    reasons = limit_reasons(signum, settings, stderr_tail, oom_kills=oom_kills, pids_hits=pids_hits)
    return f"{head}: {'; '.join(reasons)}" if reasons else head
