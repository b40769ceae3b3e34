"""The small programs a bot's process runs before the bot, so that its rlimits, cgroups, uid
and death signal are in place without a ``preexec_fn`` (Linux).

With a ``preexec_fn``, ``subprocess`` must ``fork()`` the whole referee (measured ~13 ms for
a ~90 MiB referee); without one it uses ``vfork()`` (~0.3 ms). The process instead execs a
chain, each step replacing itself with the next, so the bot is the same process:

1. util-linux ``prlimit`` sets the rlimits on itself (hard = soft; inherited from here on);
2. ``/bin/sh`` moves itself into the bot's cgroups by writing ``0`` to each
   :meth:`~referee.sandbox.cgroups.Cgroup.join_files` (exit :data:`CGROUP_EXIT` if one
   refuses: no bot runs outside its limits);
3. ``setpriv`` drops to the slot uid where asked (rlimits mode, root referee), then asks for
   SIGKILL when the referee's spawner thread ends (after the drop, which would clear it);
4. a shell checks that its parent is still the referee (``$PPID``) and exits
   (:data:`ORPHAN_EXIT`) if not: a referee that died before step 3 left no death signal;
5. it execs the bot (stdin ``/dev/null``).

Nothing of the bot runs, and no process of it exists, before all of that. Steps 2 and 4 are
one shell where there is no drop. The shells add nothing to the bot's environment (``PWD``
is unset unless the caller passed it); a POSIX shell drops variables whose names are not
shell names. The exit status and signals of the process are the bot's own.
"""

from __future__ import annotations

import functools
import os
import resource
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from referee.sandbox.bwrap import setpriv
from referee.sandbox.limits import Rlimit

SHELL = "/bin/sh"
ORPHAN_EXIT = 111  # exit code: the referee was gone before the death signal was set
CGROUP_EXIT = 112  # exit code: a cgroup refused the process

_PRLIMIT_OPTION = {
    resource.RLIMIT_CORE: "--core",
    resource.RLIMIT_NOFILE: "--nofile",
    resource.RLIMIT_FSIZE: "--fsize",
    resource.RLIMIT_CPU: "--cpu",
    resource.RLIMIT_DATA: "--data",
    resource.RLIMIT_NPROC: "--nproc",
}

enabled = True  # tests set it False to exercise the preexec_fn path


@functools.cache
def prlimit_tool() -> str | None:
    """Path of util-linux ``prlimit``, or None (looked up once)."""
    return shutil.which("prlimit") or ("/usr/bin/prlimit" if os.access("/usr/bin/prlimit", os.X_OK) else None)


@functools.cache
def _host_supports() -> bool:
    return (
        sys.platform.startswith("linux")
        and os.access(SHELL, os.X_OK)
        and setpriv() is not None
        and prlimit_tool() is not None
    )


def available() -> bool:
    """Whether bots start through the wrapper here: Linux with ``/bin/sh`` and util-linux
    ``setpriv`` and ``prlimit`` (probed once)."""
    return enabled and _host_supports()


def _join_script(join_files: Sequence[Path]) -> str:
    return "".join(
        f"echo 0 >{shlex.quote(str(path))} || {{ echo 'sandbox: cannot join cgroup {path}' >&2; exit {CGROUP_EXIT}; }}; "
        for path in join_files
    )


def wrapped_argv(
    argv: Sequence[str],
    *,
    referee_pid: int,
    limits: Sequence[Rlimit] = (),
    join_files: Sequence[Path] = (),
    drop_args: Sequence[str] = (),
    keep_pwd: bool = False,
) -> list[str]:
    """``argv`` behind the wrapper (see the module docstring).

    ``referee_pid``: the pid the bot's parent must be (``os.getpid()`` of the referee).
    ``limits``: the rlimits. ``join_files``: cgroup files to write ``0`` to.
    ``drop_args``: setpriv's options dropping to a slot uid
    (:func:`referee.sandbox.bwrap.setpriv_args` without its first and last items), or none.
    ``keep_pwd``: the environment passed holds ``PWD`` (else the shell's own is unset).
    Raises RuntimeError where :func:`available` is False.
    """
    tool, prlimit = setpriv(), prlimit_tool()
    if tool is None or prlimit is None:
        raise RuntimeError("setpriv and prlimit (util-linux) are needed")
    unset = "" if keep_pwd else "unset PWD; "
    check = f'[ "$PPID" = {referee_pid} ] || exit {ORPHAN_EXIT}; {unset}exec "$@" </dev/null'
    death = [tool, *drop_args, "--pdeathsig", "KILL", "--"]
    if drop_args:  # join as ourselves, then drop, then check
        last = [SHELL, "-c", check, "sh", *argv]
        chain = [SHELL, "-c", f'{_join_script(join_files)}exec "$@"', "sh", *death, *last] if join_files else [*death, *last]
    else:
        chain = [*death, SHELL, "-c", _join_script(join_files) + check, "sh", *argv]
    if limits:
        options = [f"{_PRLIMIT_OPTION[limit]}={soft}:{hard}" for limit, soft, hard in limits]
        chain = [prlimit, *options, "--", *chain]
    return chain
