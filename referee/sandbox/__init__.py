"""Starting, limiting and killing bot processes (docs/design.md §6, sandbox.md).

Modes: ``bwrap`` (bubblewrap namespaces, limits by cgroup v2 where writable and rlimits; the
default where it runs), ``rlimits`` (a plain process in its own session with the same limits,
no isolation) and ``none`` (debugging). :func:`resolve_mode` tells which one runs here (:func:`league_mode` for a league, where ``auto``
never falls back to ``rlimits``);
:func:`launch` starts one bot process; :func:`kill_all` kills every one still alive.

It imports only ``referee.errors`` of the referee (and pyseccomp): the league, check-bot and
the cluster drive it, the config names its settings.
"""

from referee.sandbox.launch import launch
from referee.sandbox.modes import (
    NONE_WARNING,
    RLIMITS_AS_YOU_WARNING,
    RLIMITS_WARNING,
    bwrap_problem,
    league_mode,
    refusals_unnamed,
    resolve_mode,
)
from referee.sandbox.process import TERM_GRACE_S, BotProcess, ask_to_stop, kill_all, live_processes, refused_calls, stop
from referee.sandbox.settings import SandboxSettings

__all__ = [
    "NONE_WARNING",
    "RLIMITS_AS_YOU_WARNING",
    "RLIMITS_WARNING",
    "TERM_GRACE_S",
    "BotProcess",
    "SandboxSettings",
    "ask_to_stop",
    "bwrap_problem",
    "kill_all",
    "launch",
    "league_mode",
    "live_processes",
    "refusals_unnamed",
    "refused_calls",
    "resolve_mode",
    "stop",
]
