"""Which sandbox mode runs here: probe bubblewrap once, say what is lost without it."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from referee.errors import SandboxError
from referee.sandbox import bwrap, cgroups, futexwait, nproc, seccomp, spawner, userscope
from referee.sandbox.settings import SandboxSettings

RLIMITS_WARNING = (
    "sandbox: rlimits only — bots can reach the network, read your files, share the host's /tmp "
    "(not size-limited), fill their home without a total limit, and leave daemons that may outlive them"
)
RLIMITS_AS_YOU_WARNING = (
    "sandbox: rlimits only — bots run as you: they can kill the referee, read and change your files, "
    "reach the network, share the host's /tmp (not size-limited), and leave daemons that may outlive them"
)
NONE_WARNING = "sandbox: none — bots are not contained: no limits, and they can reach the network and read your files"
PROBE_TIMEOUT_S = 10.0


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run a bot here (what to do about it), or None when it can.

    Runs ``bwrap`` once with the real recipe (namespaces, mounts, setpriv as root) on
    ``true``; the answer is cached for the life of the process.
    """
    if not sys.platform.startswith("linux"):
        return "bubblewrap needs Linux"
    if bwrap.executable() is None:
        sudo = "" if os.geteuid() == 0 else "sudo "
        return f"bubblewrap is not installed (install it: {sudo}apt-get install bubblewrap)"
    as_root = os.geteuid() == 0
    true = shutil.which("true") or "/usr/bin/true"
    argv = bwrap.base_args(SandboxSettings(mode="bwrap"), as_root=as_root) + ["--"]
    if as_root:
        if shutil.which("setpriv") is None:
            return "setpriv is missing (install util-linux) to drop a root referee's privileges"
        argv += bwrap.setpriv_args(bwrap.SLOT_UIDS[0])
    argv.append(true)
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap cannot run here ({error})"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    reason = lines[0] if lines else f"exit code {done.returncode}"
    hint = "allow user namespaces (sysctl kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0)"
    return f"bubblewrap cannot run here ({reason}): {hint}"


def rlimits_warning() -> str:
    """What the rlimits mode does not contain, in one line: :data:`RLIMITS_WARNING` for a
    root referee (its bots run as slot uids), :data:`RLIMITS_AS_YOU_WARNING` otherwise."""
    return RLIMITS_WARNING if os.geteuid() == 0 else RLIMITS_AS_YOU_WARNING


def limits_warning(mode: str) -> str | None:
    """What this host does not let the referee bound per bot process (one line each), or
    None: no cgroup v2 here, or controllers missing (:func:`referee.sandbox.cgroups.warning`;
    a normal user's systemd scopes stand in for a cgroup of our own:
    :mod:`referee.sandbox.userscope`), and processes bounded only for the uid as a whole
    (:func:`referee.sandbox.nproc.warning`). The one place the start of a league, of
    ``check-bot`` and of ``play`` learns what the host bounds (through :func:`resolve_mode`)."""
    found = cgroups.hierarchy()
    manager = userscope.available() if found is None and mode != "none" else None
    if manager is not None:
        missing = sorted(set(cgroups.CONTROLLERS) - manager.controllers)
        cgroup_line = cgroups.missing_warning(missing) if missing else None
        pids_bounded = "pids" in manager.controllers
    else:
        cgroup_line = cgroups.warning()
        pids_bounded = found is not None  # a group of our own always has pids (cgroups.REQUIRED)
    return _joined(cgroup_line, nproc.warning(mode, pids_bounded))


def resolve_mode(settings: SandboxSettings) -> tuple[str, str | None]:
    """The effective mode for ``settings.mode`` on this host and a one-line warning (or None).

    ``auto`` -> ``bwrap`` where bubblewrap can run, else ``rlimits`` with
    :func:`rlimits_warning` (and why): for ``referee play`` and ``check-bot`` of one's own
    bot; a league asks :func:`league_mode`. A further line names what cannot be applied here:
    no seccomp filter (bwrap), what the host does not bound per bot (:func:`limits_warning`).
    ``bwrap`` where it cannot run -> SandboxError saying how to fix it. ``rlimits`` ->
    :func:`rlimits_warning`; ``none`` -> :data:`NONE_WARNING`.
    """
    if settings.mode == "none":
        return "none", NONE_WARNING
    if settings.mode == "rlimits":
        return "rlimits", _joined(rlimits_warning(), limits_warning("rlimits"))
    problem = bwrap_problem()
    if problem is None:
        return "bwrap", _joined(_seccomp_warning(), limits_warning("bwrap"))
    if settings.mode == "bwrap":
        raise SandboxError(f'sandbox: mode = "bwrap" but {problem}; or choose [sandbox] mode = "rlimits"')
    return "rlimits", _joined(f"{rlimits_warning()} ({problem})", limits_warning("rlimits"))


def _seccomp_warning() -> str | None:
    """What the seccomp filter of bubblewrap bots lacks here, in one line, or None: no
    filter at all, or no user notification for their shared futex waits (Java bots spin)."""
    if seccomp.program() is None:
        return seccomp.MISSING_WARNING
    if not spawner.notified_available():
        return f"{futexwait.UNAVAILABLE_WARNING} ({futexwait.problem()})"
    return None


def refusals_unnamed(settings: SandboxSettings) -> str | None:
    """Why the calls the allowlist refuses bots started with ``settings`` are not named in
    their logs (another mode, no seccomp filter, no user notification here, or its
    supervisor ended during this run), or None where they are."""
    mode = resolve_mode(settings)[0] if settings.mode in ("auto", "bwrap") else settings.mode
    if mode != "bwrap":
        return f"the {mode} mode has no system-call allowlist"
    if seccomp.program() is None:
        return "no seccomp filter here"
    if not spawner.notified_available():
        return f"the referee cannot name them here ({futexwait.ended() or futexwait.problem()})"
    return None


def league_mode(settings: SandboxSettings, config: str) -> tuple[str, str | None]:
    """:func:`resolve_mode` for a league of other people's bots (``referee run``), where
    ``auto`` never falls back: without a usable bubblewrap it raises SandboxError, one line
    naming the fix, or ``mode = "rlimits"`` in ``config`` (the file's name) to accept what
    that mode does not contain (docs/design.md §6)."""
    if settings.mode == "auto" and (problem := bwrap_problem()) is not None:
        if os.geteuid() == 0:
            accept = "to run them without isolation (they can reach the network and read world-readable files)"
        else:
            accept = "to accept that the bots run as you and can kill the referee, read and change your files"
        raise SandboxError(
            f"sandbox: {problem}; a league of other people's bots needs bubblewrap: install it, "
            f'or set [sandbox] mode = "rlimits" in {config} {accept}'
        )
    return resolve_mode(settings)


def _joined(*lines: str | None) -> str | None:
    kept = [line for line in lines if line]
    return "\n".join(kept) if kept else None
