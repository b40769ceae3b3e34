"""Start one bot process under the sandbox (sandbox.md; docs/design.md §6)."""

from __future__ import annotations

import atexit
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.errors import BotError, HostError
from referee.sandbox import bwrap, cgroups, limits, nproc, seccomp, spawner, uids, userscope, wrapper
from referee.sandbox.cgroups import Cgroup
from referee.sandbox.command import ResolvedCommand, resolve_command
from referee.sandbox.modes import resolve_mode
from referee.sandbox.output import OutputLog
from referee.sandbox.process import BotProcess, kill_all, register, slot_holder
from referee.sandbox.settings import KiB, SandboxSettings
from referee.sandbox.uids import UidClaim
from referee.sandbox.workdir import PrivateDir, make_private_dir, private_folder, reachable_by_others, safe_stem, tmpfs_home

PATH_INSIDE = "/usr/local/bin:/usr/bin:/bin"
PROCESSES_AT_ONCE = 8  # bot processes a caller that does not say runs at once (the uid's budget, nproc.py)
_atexit_registered = False


def launch(
    command: Sequence[str],
    *,
    name: str,
    slot: int,
    bot_dir: Path,
    run_dir: Path,
    settings: SandboxSettings,
    env: Mapping[str, str] | None = None,
    processes_at_once: int = PROCESSES_AT_ONCE,
) -> BotProcess:
    """Start one bot process for the bot ``name`` in ``slot`` (unique among live processes).
    Under a root referee the bot runs as an unprivileged uid of its own (61000-61183, below
    systemd's dynamic users; held by no other live bot of any referee: :mod:`referee.sandbox.uids`).
    The process starts through :mod:`referee.sandbox.wrapper` (no ``preexec_fn``), which sets
    its limits, cgroups, uid and death signal before the bot runs; ~1-3 ms for ``launch``
    itself on an idle host (was ~15-30 ms with a forking ``preexec_fn``).

    ``command[0]``: ``python``/``python3`` (the referee's own interpreter), ``node``, or a path
    relative to ``bot_dir`` (else absolute, else a name on PATH). ``bot_dir``: the bot's files
    and its working directory (read-only at its real path under bwrap). ``run_dir``: holds the
    log ``<name>-<slot>.log`` (of this run: an earlier run's is moved to ``.log.previous``; kept) and, outside bwrap, the fresh private writable
    directory ``<name>-<slot>/`` (the bot's ``HOME``; removed by :meth:`BotProcess.kill`;
    under bwrap the home is a tmpfs at ``/bot``). The bot finds where to serve in
    ``KWHIST_LISTEN`` (``unix:<socket path as it sees it>``); the referee dials it only
    through :meth:`BotProcess.find_address`. ``env`` adds variables to its environment.
    ``processes_at_once``: how many bot processes the caller runs at once, at most (a
    normal user's referee bounds its uid for all of them: :mod:`referee.sandbox.nproc`).

    Raises BotError (one line naming the bot and the command) when the command or directory
    cannot be found or the process cannot start; HostError (the bot is not at fault) when
    this host cannot run it as asked: its files out of reach of a slot uid in the rlimits
    mode, no slot uid free, its log not writable; SandboxError when ``mode = "bwrap"`` cannot
    run here; ConfigError for a missing ``ro_paths`` entry; ValueError when ``slot`` is held
    by a live process.
    """
    mode = _effective_mode(settings)
    bot_dir = Path(os.path.realpath(bot_dir))
    if not bot_dir.is_dir():
        raise BotError(f"bot {name!r}: directory {bot_dir} does not exist")
    resolved = resolve_command(command, name=name, bot_dir=bot_dir)
    holder = slot_holder(slot)
    if holder is not None:
        if holder.poll() is None:
            raise ValueError(f"slot {slot} is held by {holder!r}")
        holder.kill()
    claim = _slot_uid(mode, name, bot_dir, resolved)
    uid = claim.uid if claim is not None else None
    private: PrivateDir | None = None
    cgroup: Cgroup | None = None
    log: OutputLog | None = None
    try:
        if mode == "bwrap" and uid is not None and bot_dir.stat().st_mode & 0o005 != 0o005:
            raise BotError(f"bot {name!r}: directory {bot_dir} is not readable by the sandbox's user (chmod o+rx it)")
        run_dir = Path(os.path.abspath(run_dir))
        stem = safe_stem(name, slot)
        try:
            private_folder(run_dir)
            log = OutputLog(run_dir / f"{stem}.log", settings.output_kb * KiB)
        except OSError as error:
            raise HostError(f"bot {name!r}: cannot write its log in {run_dir}: {error}") from error
        private = tmpfs_home() if mode == "bwrap" else make_private_dir(run_dir, stem, slot, uid=uid)
        cgroup = _cgroup(mode, stem, settings)
        popen = _start(mode, resolved, name, bot_dir, private, cgroup, uid, settings, env, log, processes_at_once)
    except BaseException as error:
        if log is not None:
            log.finish(wait_s=0)
        if cgroup is not None:
            cgroup.remove()
        if private is not None:
            private.remove()
        if claim is not None:
            claim.release()
        if isinstance(error, (OSError, subprocess.SubprocessError)):
            raise BotError(f"bot {name!r}: cannot start {command[0]!r}: {error}") from error
        raise
    process = BotProcess(
        name=name,
        slot=slot,
        mode=mode,
        popen=popen,
        log=log,
        private=private,
        cgroup=cgroup,
        uid=claim,
        settings=settings,
    )
    register(process)
    _register_atexit()
    return process


def _register_atexit() -> None:
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(kill_all)  # the CLI registers it too; kill_all is idempotent
        _atexit_registered = True


def _effective_mode(settings: SandboxSettings) -> str:
    if settings.mode == "auto":
        return resolve_mode(settings)[0]
    if settings.mode == "bwrap":
        resolve_mode(settings)  # raises SandboxError where bubblewrap cannot run
    return settings.mode


def _cgroup(mode: str, stem: str, settings: SandboxSettings) -> Cgroup | None:
    """The bot process's cgroup: a leaf of our own writable hierarchy, else (a normal user
    on a systemd desktop) a transient scope of the user manager; None where neither exists."""
    if mode == "none":
        return None
    found = Cgroup.create(stem, settings)
    if found is None and cgroups.hierarchy() is None and (manager := userscope.available()) is not None:
        return userscope.ScopeCgroup.for_bot(stem, settings, manager)
    return found


def _slot_uid(mode: str, name: str, bot_dir: Path, resolved: ResolvedCommand) -> UidClaim | None:
    """The unprivileged uid a root referee runs the bot as ("Root is a trap"), held until the
    bot is reaped (:mod:`referee.sandbox.uids`); None to keep ours (a non-root referee, or
    mode none). A bot never runs as root in the rlimits mode: where its files or runtime
    cannot be reached by another user (there are no private mounts to make them so), raises
    HostError saying how to fix it (:func:`rlimits_problem`); so does a host with no slot
    uid free."""
    if os.geteuid() != 0 or mode == "none":
        return None
    if mode == "rlimits":
        problem = rlimits_problem([bot_dir, Path(resolved.argv[0]).parent, *resolved.runtime_paths])
        if problem is not None:
            raise HostError(f"bot {name!r}: {problem}")
    held = uids.claim()
    if held is None:
        raise HostError(f"bot {name!r}: all {len(bwrap.SLOT_UIDS)} sandbox uids are in use by live bot processes")
    return held


def rlimits_problem(paths: Sequence[Path]) -> str | None:
    """Why a root referee cannot run a bot needing ``paths`` in the rlimits mode without
    running it as root (one of them is not reachable by other users), with the fix; None
    when it can (or the referee is not root)."""
    if os.geteuid() != 0:
        return None
    for path in paths:
        if not reachable_by_others(path):
            return (
                f"the rlimits mode would have to run it as root: {path} cannot be reached by other users; "
                f'use [sandbox] mode = "bwrap", or install its runtime and files where other users can '
                f"reach them (every directory above them o+x)"
            )
    return None


def _bot_env(
    mode: str, private: PrivateDir, resolved: ResolvedCommand, extra: Mapping[str, str] | None, settings: SandboxSettings
) -> dict[str, str]:
    """A cleared environment (``none``: the referee's own), plus ``KWHIST_LISTEN`` and ``extra``.
    Under bwrap ``PATH`` starts with the folders of the runtime the command needs
    (:attr:`ResolvedCommand.path_dirs`), so a wrapper finds the ``node`` it was resolved to."""
    if mode == "none":
        env = dict(os.environ)
    else:
        inside = ":".join([*map(str, resolved.path_dirs), PATH_INSIDE])
        env = {
            "PATH": inside if mode == "bwrap" else os.environ.get("PATH", PATH_INSIDE),
            "LANG": "C.UTF-8",
            "HOME": str(private.inside),
            "TMPDIR": "/tmp" if mode == "bwrap" else str(private.inside),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            **limits.runtime_env(settings),
        }
    env["KWHIST_LISTEN"] = f"unix:{private.socket_inside}"
    env.update(extra or {})
    return env


def _nproc(
    mode: str, uid: int | None, cgroup: Cgroup | None, settings: SandboxSettings, processes_at_once: int
) -> tuple[int | None, int | None]:
    """``RLIMIT_NPROC`` of the bot: (before its user namespace, inside it), None where not set.

    It counts every task of a uid (per user namespace since Linux 5.14). A slot uid runs
    nothing but this bot: ``pids``. A normal user's referee bounds its uid as a whole, for
    every bot at once plus itself, and each bot inside a user namespace of its own where the
    kernel counts per namespace and no pids cgroup bounds it (:mod:`referee.sandbox.nproc`).
    Root ignores ``RLIMIT_NPROC``: there the pids cgroup bounds the bot."""
    if mode == "none" or not Path("/proc").is_dir():
        return None, None  # without /proc we cannot count what our uid already runs
    if uid is not None:
        return settings.pids, None
    if os.geteuid() == 0:
        return None, None
    budget = nproc.uid_budget(settings.pids, processes_at_once)
    if cgroup is not None and cgroup.limits_pids:
        return budget, None
    return budget, settings.pids if nproc.per_bot(mode) else None


def _start(
    mode: str,
    resolved: ResolvedCommand,
    name: str,
    bot_dir: Path,
    private: PrivateDir,
    cgroup: Cgroup | None,
    uid: int | None,
    settings: SandboxSettings,
    extra_env: Mapping[str, str] | None,
    log: OutputLog,
    processes_at_once: int = PROCESSES_AT_ONCE,
) -> subprocess.Popen[bytes]:
    # RLIMIT_DATA where no cgroup bounds memory (limits.rlimits: what the bot commits)
    memory_rlimit = mode != "none" and not (cgroup is not None and cgroup.limits_memory)
    env = _bot_env(mode, private, resolved, extra_env, settings)
    # a bubblewrap bot starts from the thread whose filter holds the allowlist and sends the
    # rest (shared futex calls among it) to the referee, where that is available; bubblewrap's
    # own filter then refuses only what that thread's filter allows bubblewrap's set-up
    notified = mode == "bwrap" and spawner.notified_available()
    filter_fd = seccomp.program_fd(notified) if mode == "bwrap" else None
    outer_nproc, inner_nproc = _nproc(mode, uid, cgroup, settings, processes_at_once)
    inner = nproc.inner_prefix(inner_nproc) if inner_nproc is not None else []
    if mode == "bwrap":
        try:
            argv = bwrap.bwrap_argv(
                resolved, bot_dir=bot_dir, private=private, settings=settings, env=env, uid=uid, seccomp_fd=filter_fd,
                inside=inner,
                hidden=(log.path.parent, log.path.parent.parent),  # the run folder, and the results' folder
            )  # fmt: skip
        except BaseException:
            if filter_fd is not None:
                os.close(filter_fd)
            raise
    else:
        argv = [*(nproc.unshare_prefix() if inner else []), *inner, *resolved.argv]
    if isinstance(cgroup, userscope.ScopeCgroup):
        argv = cgroup.argv_prefix() + argv
    rlimits = limits.rlimits(settings, memory=memory_rlimit, nproc=outer_nproc) if mode != "none" else []
    shown_uid = uid if uid is not None else os.geteuid()
    cgroup_shown = cgroup.describe() if cgroup is not None else "none"
    if inner_nproc is not None:
        processes = f", RLIMIT_NPROC {inner_nproc} in its own user namespace (uid {outer_nproc})"
    elif outer_nproc is not None and uid is None:
        processes = f", RLIMIT_NPROC {outer_nproc} for the whole uid"
    else:
        processes = ""
    log.note(
        f"{time.strftime('%Y-%m-%d %H:%M:%S')} start {name}: {' '.join(resolved.argv)} "
        f"(mode {mode}, uid {shown_uid}, cgroup {cgroup_shown}, RLIMIT_DATA {'on' if memory_rlimit else 'off'}"
        f"{processes}{_seccomp_shown(filter_fd is not None, notified) if mode == 'bwrap' else ''})"
    )
    if cgroup is not None and cgroup.missing:
        log.note(f"warning: cgroup controllers not applied: {', '.join(cgroup.missing)} (the rlimits stand in)")
    drop = uid if mode != "bwrap" else None  # under bwrap, setpriv drops it inside
    # under bwrap the bot's environment travels in bwrap's --setenv options: the steps before
    # it (prlimit, setpriv, sh, bwrap) run with none, so the util-linux tools load no locale
    chain_env: Mapping[str, str] = {} if mode == "bwrap" else env
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    cgroup_fds: list[int] = []
    passed = (filter_fd,) if filter_fd is not None else ()
    try:
        if wrapper.available():
            wrapped = wrapper.wrapped_argv(
                argv,
                referee_pid=os.getpid(),
                limits=rlimits,
                join_files=cgroup.join_files() if cgroup is not None else (),
                drop_args=bwrap.setpriv_args(drop)[1:-1] if drop is not None else (),  # its options only
                keep_pwd="PWD" in chain_env,
            )
            spawn = _spawn(wrapped, bot_dir, chain_env, out_w, err_w, pass_fds=passed)
        else:
            cgroup_fds = cgroup.open_procs() if cgroup is not None else []
            spawn = _forking_spawn(argv, bot_dir, chain_env, out_w, err_w, rlimits, cgroup_fds, mode, drop, passed)
        popen = spawner.run_notified(spawn) if notified else spawner.run_in_spawner(spawn)
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        raise
    finally:
        for fd in (out_w, err_w, *cgroup_fds, *passed):
            os.close(fd)
    log.start(out_r, err_r)
    return popen


def _seccomp_shown(on: bool, futex_notified: bool) -> str:
    """The seccomp part of the first line of a bubblewrap bot's log."""
    if not on:
        return ", seccomp off"
    if futex_notified:
        return ", seccomp on (allowlist; a refused call is named below), shared futex waits answered by the referee"
    return ", seccomp on (allowlist; refused calls not named), shared futex waits refused (a thread joining another spins)"


def _spawn(
    argv: list[str], bot_dir: Path, env: Mapping[str, str], out_w: int, err_w: int, **extra: Any
) -> Callable[[], subprocess.Popen[bytes]]:
    """Start ``argv`` (the wrapper, which does the rest) in a new session: no ``preexec_fn``,
    so ``subprocess`` uses ``vfork()``. ``extra``: further ``Popen`` arguments (only the
    forking fallback passes any)."""

    def spawn() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            cwd=bot_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            close_fds=True,
            **extra,
        )

    return spawn


def _forking_spawn(
    argv: list[str],
    bot_dir: Path,
    env: Mapping[str, str],
    out_w: int,
    err_w: int,
    rlimits: list[limits.Rlimit],
    cgroup_fds: list[int],
    mode: str,
    drop: int | None,
    passed: tuple[int, ...] = (),
) -> Callable[[], subprocess.Popen[bytes]]:
    """Where there is no wrapper (:func:`referee.sandbox.wrapper.available`): a
    ``preexec_fn`` joins the cgroups, sets the rlimits and the death signal in the forked
    child (``subprocess`` then forks the whole referee)."""
    preexec = limits.make_preexec(rlimits, cgroup_fds, die_with_parent=mode != "bwrap")
    return _spawn(
        argv, bot_dir, env, out_w, err_w,
        preexec_fn=preexec, user=drop, group=drop, extra_groups=[] if drop is not None else None, pass_fds=passed,
    )  # fmt: skip
