"""Which sandbox mode runs here: probe bubblewrap once, say what is lost without it."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from referee.errors import SandboxError
from referee.sandbox import bwrap, cgroups, seccomp
from referee.sandbox.settings import SandboxSettings

RLIMITS_WARNING = (
    "sandbox: rlimits only — bots can reach the network, read your files, share the host's /tmp "
    "(not size-limited), fill their home without a total limit, and leave daemons that may outlive them"
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
        return "bubblewrap is not installed (install it: apt-get install bubblewrap)"
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


def resolve_mode(settings: SandboxSettings) -> tuple[str, str | None]:
    """The effective mode for ``settings.mode`` on this host and a one-line warning (or None).

    ``auto`` -> ``bwrap`` where bubblewrap can run, else ``rlimits`` with
    :data:`RLIMITS_WARNING` (and why). A further line names what cannot be applied here: no
    seccomp filter (bwrap), cgroup controllers missing (:func:`referee.sandbox.cgroups.warning`). ``bwrap`` where it cannot run -> SandboxError saying
    how to fix it. ``rlimits`` -> :data:`RLIMITS_WARNING`; ``none`` -> :data:`NONE_WARNING`.
    """
    if settings.mode == "none":
        return "none", NONE_WARNING
    if settings.mode == "rlimits":
        return "rlimits", _joined(RLIMITS_WARNING, cgroups.warning())
    problem = bwrap_problem()
    if problem is None:
        return "bwrap", _joined(None if seccomp.program() is not None else seccomp.MISSING_WARNING, cgroups.warning())
    if settings.mode == "bwrap":
        raise SandboxError(f'sandbox: mode = "bwrap" but {problem}; or choose [sandbox] mode = "rlimits"')
    return "rlimits", _joined(f"{RLIMITS_WARNING} ({problem})", cgroups.warning())


def _joined(*lines: str | None) -> str | None:
    kept = [line for line in lines if line]
    return "\n".join(kept) if kept else None
