"""How a normal user's referee bounds a bot's processes and threads without a pids cgroup
(sandbox.md "Limits": ``pids``).

``RLIMIT_NPROC`` counts the tasks of a uid, so for a referee that is not root (and runs every
bot as its own uid) it is never a per-bot limit on its own: set to "what the uid runs now +
``pids``" as each bot starts, the earlier bots were over their limit once later bots and the
referee's own threads existed, and instant sample bots timed out with "can't start new
thread". Since Linux 5.14 the kernel counts ``RLIMIT_NPROC`` per user namespace, and bounds
each namespace as a whole, towards the uid that made it, by the limit in force when it was
made. So, for each bot:

1. before its user namespace exists, ``RLIMIT_NPROC`` is the uid's budget
   (:func:`uid_budget`): what the uid ran when the referee started, an allowance for the
   referee and the user's other programs, and ``pids`` for every bot process the league runs
   at once. No bot, nor all of them together, can take the uid past it;
2. inside the namespace (bubblewrap's own; in the rlimits mode util-linux ``unshare --user``,
   :func:`unshare_prefix`) ``prlimit`` sets ``RLIMIT_NPROC`` to ``pids``, which then counts
   the bot's own tasks only (:func:`inner_prefix`).

Where the kernel counts per uid only, or no user namespace can be made, step 2 is left out:
the bots share the uid's budget, and :func:`warning` says so at start. A root referee has
no need of any of this: each bot runs as a slot uid of its own.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
from collections.abc import Sequence

from referee.sandbox.limits import tasks_of_uid

REFEREE_ALLOWANCE = 512  # tasks: the referee's own threads as the league grows, and the user's other programs
PROBE_TIMEOUT_S = 10.0
# Forks once inside a fresh user namespace under an RLIMIT_NPROC just large enough for the
# namespace's tasks (the shell and its child; under bubblewrap also its init): only a kernel
# that counts per namespace lets it, the uid running more tasks than that already.
_PROBE_SCRIPT = "true & wait $! && echo counted-per-namespace"

_baseline: int | None = None


def prlimit_tool() -> str:
    """util-linux ``prlimit`` (``/usr/bin/prlimit``, also inside the sandbox)."""
    return shutil.which("prlimit") or "/usr/bin/prlimit"


def inner_prefix(pids: int) -> list[str]:
    """The argv prefix that sets ``RLIMIT_NPROC`` to ``pids`` inside the bot's user namespace."""
    return [prlimit_tool(), f"--nproc={pids}:{pids}", "--"]


UNSHARE_MAPS = ("--map-current-user", "--map-root-user")  # util-linux 2.38+; before, only the latter


def unshare_prefix() -> list[str]:
    """The argv prefix that runs a command in a user namespace of its own (rlimits mode): as
    the same uid where util-linux can map it, else as that namespace's root (its
    capabilities reach nothing outside the namespace)."""
    return _unshare_prefix(per_bot_in_rlimits() or UNSHARE_MAPS[0])


def _unshare_prefix(mapping: str) -> list[str]:
    return [shutil.which("unshare") or "/usr/bin/unshare", "--user", mapping, "--"]


def _counts_per_namespace(prefix: Sequence[str], tasks: int) -> bool:
    argv = [*prefix, *inner_prefix(tasks), "/bin/sh", "-c", _PROBE_SCRIPT]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    return b"counted-per-namespace" in done.stdout


@functools.cache
def per_bot_in_rlimits() -> str | None:
    """Whether a normal user's rlimits-mode bot gets a per-bot ``RLIMIT_NPROC`` here: ``unshare``
    can make a user namespace and the kernel counts per namespace (probed once); -> the
    ``unshare`` option that maps the uid (:data:`UNSHARE_MAPS`), or None."""
    if os.geteuid() == 0 or not os.path.isdir("/proc") or shutil.which("unshare") is None:
        return None
    return next((mapping for mapping in UNSHARE_MAPS if _counts_per_namespace(_unshare_prefix(mapping), 2)), None)


@functools.cache
def per_bot_in_bwrap() -> bool:
    """Whether a normal user's bubblewrap bot gets a per-bot ``RLIMIT_NPROC`` here (the kernel
    counts per user namespace; probed once in bubblewrap's own namespace)."""
    if os.geteuid() == 0:
        return False
    from referee.sandbox import bwrap
    from referee.sandbox.settings import SandboxSettings

    return _counts_per_namespace([*bwrap.base_args(SandboxSettings(mode="bwrap"), as_root=False), "--"], 3)


def per_bot(mode: str) -> bool:
    """Whether ``RLIMIT_NPROC`` bounds each bot on its own in ``mode`` for this referee."""
    if mode == "bwrap":
        return per_bot_in_bwrap()
    if mode == "rlimits":
        return per_bot_in_rlimits() is not None
    return False


def uid_budget(pids: int, processes_at_once: int) -> int:
    """``RLIMIT_NPROC`` for the whole uid, in tasks: the tasks it ran when the referee first
    asked (measured once, so every bot of a league gets the same budget), plus
    :data:`REFEREE_ALLOWANCE`, plus ``pids`` for each of ``processes_at_once`` bot processes;
    at most 128 below the referee's own soft limit, so that it can always start threads."""
    global _baseline
    if _baseline is None:
        _baseline = tasks_of_uid(os.getuid())
    budget = _baseline + REFEREE_ALLOWANCE + pids * max(1, processes_at_once)
    soft, _hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY:
        budget = min(budget, max(soft - 128, pids))  # the referee keeps room under its own limit
    return budget


def warning(mode: str, pids_cgroup: bool) -> str | None:
    """One line for the start of a league: what bounds a bot's processes when the referee is
    not root and no pids cgroup applies; None when each bot has its own bound."""
    if os.geteuid() == 0 or pids_cgroup or mode not in ("bwrap", "rlimits") or per_bot(mode):
        return None
    return (
        "sandbox: processes and threads are bounded for your uid as a whole, not per bot "
        "(no writable cgroup, and RLIMIT_NPROC cannot count per user namespace here): one bot "
        "that starts threads without end can leave the others none"
    )
