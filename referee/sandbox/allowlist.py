"""The system calls a bubblewrap bot may make: one allowlist, in groups, each with why
(docs/sandbox.md "The allowlist").

Bots share one kernel, and every call they can make is a door to it: a denylist only ever
closed the door last found (``flock``, then a named keyring, then futex waiters on a shared
runtime file, then io_uring's futex operations, which no filter sees). So bots get what the
runtimes of the five sample languages need and nothing else, as Docker's default profile,
nsjail and Chrome's renderer do. The list was read from ``strace`` of the Python, Node, C++,
Go and Java samples through whole games (``scripts/trace_bot_syscalls.py``), from what the
C libraries and runtimes call at start and when they start threads and processes, with a
margin for what students' bots commonly use (numpy and its BLAS threads, ``subprocess`` and
``multiprocessing``, SQLite, timers); every group below says why it is there.

A call that is not on the list fails with ``ENOSYS``, "no such call here": the answer a C
library or runtime expects from a kernel that lacks a call, so it falls back where it can
(glibc to ``clone`` when ``clone3`` is missing, libuv to epoll without io_uring). A call
refused on purpose (:data:`REFUSED`: it could carry data between bots, or it needs
privileges a bot never has) fails with ``EPERM``, "not permitted", as it always has: a
program that tries a lock learns it may not, rather than that the kernel is old.

Argument checks (a 32-bit argument on its low 32 bits, which is all the kernel reads):

- ``fcntl``: the commands in :data:`FCNTL_COMMANDS`; the lock, lease and notification
  commands (:data:`LOCK_COMMANDS`) fail with ``EPERM``;
- ``futex``: private operations only (``FUTEX_PRIVATE_FLAG``); a shared one is answered by
  the referee (:mod:`referee.sandbox.futexwait`) or refused with ``EINVAL``;
- ``socket``: Unix, IPv4 and IPv6 sockets (the bot's network namespace has only loopback),
  and route netlink (Go and Java list the network interfaces);
- ``clone``: threads and processes, never a new namespace (``EPERM``).

This module holds the lists; :mod:`referee.sandbox.seccomp` and
:mod:`referee.sandbox.futexwait` build the filters from them (:func:`add_allowed`).
"""

from __future__ import annotations

import errno
import functools
from dataclasses import dataclass
from typing import Any

DOCS = "docs/sandbox.md"


@dataclass(frozen=True)
class Group:
    """Calls allowed (or refused) together, and why."""

    why: str
    names: tuple[str, ...]


ALLOWED: tuple[Group, ...] = (
    Group(
        "start-up and exit of every program: the dynamic loader, the C library's thread "
        "registration (robust futex list, rseq), and the sandbox's own start (setpriv drops "
        "the slot uid's capabilities; a normal user's referee sets RLIMIT_NPROC with prlimit)",
        ("execve", "execveat", "exit", "exit_group", "arch_prctl", "set_tid_address", "set_robust_list",
         "get_robust_list", "rseq", "prlimit64", "getrlimit", "setrlimit", "prctl", "capget", "capset", "umask"),
    ),
    Group(
        "memory: the C library's allocator, the JIT compilers of V8 and the JVM (which map, "
        "protect and name their code pages), Go's heap, Node's memory protection keys; "
        "membarrier and the NUMA calls for the JVM's collectors",
        ("brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore", "mlock", "mlock2",
         "munlock", "mlockall", "munlockall", "membarrier", "memfd_create", "pkey_alloc", "pkey_free",
         "pkey_mprotect", "get_mempolicy", "set_mempolicy", "mbind"),
    ),
    Group(
        "threads and processes: gRPC's, the JVM's, Go's and libuv's thread pools, numpy's BLAS "
        "threads, subprocess and multiprocessing (within the bot's process limit and its own "
        "PID namespace: it can signal only its own processes)",
        ("clone", "fork", "vfork", "wait4", "waitid", "kill", "tkill", "tgkill", "getpid", "getppid", "gettid",
         "getpgid", "getpgrp", "setpgid", "getsid", "setsid", "pidfd_open", "pidfd_send_signal",
         "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sched_yield", "sched_getaffinity", "sched_setaffinity",
         "sched_getparam", "sched_setparam", "sched_getscheduler", "sched_setscheduler", "sched_getattr",
         "sched_setattr", "sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval",
         "getpriority", "setpriority", "getcpu", "seccomp"),
    ),
    Group(
        "signals: handlers, masks and alternate stacks (Go and the JVM use signals for "
        "preemption and safepoints)",
        ("rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending", "rt_sigtimedwait",
         "sigaltstack", "restart_syscall", "pause"),
    ),
    Group(
        "time and timers: clocks, sleeps, interval timers, CPU time (every runtime's event "
        "loop and the time a bot keeps for its own decisions)",
        ("clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "times",
         "getrusage", "alarm", "getitimer", "setitimer", "timer_create", "timer_settime", "timer_gettime",
         "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime"),
    ),
    Group(
        "waiting for events: epoll, poll and select (gRPC's and libuv's pollers, Go's netpoller), "
        "eventfd and signalfd wake-ups",
        ("epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "poll",
         "ppoll", "select", "pselect6", "eventfd", "eventfd2", "signalfd", "signalfd4"),
    ),
    Group(
        "files and descriptors: reading the runtime and the bot's own files, writing its home "
        "and /tmp (tmpfs of a fixed size), pipes, ioctl on its own descriptors (a terminal "
        "cannot be reached: the sandbox is a new session)",
        ("read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
         "lseek", "open", "openat", "openat2", "creat", "close", "close_range", "dup", "dup2", "dup3", "pipe",
         "pipe2", "fcntl", "ioctl", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access",
         "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd", "chdir",
         "fchdir", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link",
         "linkat", "symlink", "symlinkat", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown",
         "lchown", "fchownat", "truncate", "ftruncate", "fallocate", "fsync", "fdatasync", "fadvise64", "utime",
         "utimes", "futimesat", "utimensat", "mknod", "mknodat", "copy_file_range", "sendfile", "splice", "tee",
         "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr", "setxattr",
         "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"),
    ),
    Group(
        "sockets: the bot serves gRPC on a Unix socket; its network namespace holds only "
        "loopback (the socket families are checked)",
        ("socket", "socketpair", "bind", "listen", "accept", "accept4", "connect", "getsockname", "getpeername",
         "getsockopt", "setsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
         "shutdown"),
    ),
    Group(
        "futexes: every lock and condition variable of every runtime (private ones only: "
        "shared ones are the referee's, see futexwait)",
        ("futex",),
    ),
    Group(
        "identity: reading its uid and groups, and setpriv's drop to the slot uid (a bot "
        "without capabilities cannot gain any)",
        ("getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups", "setuid", "setgid",
         "setreuid", "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid"),
    ),
    Group(
        "System V and POSIX IPC: Python's multiprocessing and databases; the bot has an IPC "
        "namespace of its own, so no other bot shares them",
        ("shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd",
         "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
         "mq_getsetattr"),
    ),
    Group(
        "facts of the machine: glibc reads the memory size and the number of CPUs through "
        "sysinfo and sched_getaffinity without checking for an error, runtimes seed their "
        "random numbers from getrandom (the machine-wide counts are a channel docs/sandbox.md "
        "measures)",
        ("sysinfo", "uname", "getrandom"),
    ),
)  # fmt: skip

REFUSED: tuple[Group, ...] = (
    Group(
        "file locks and change notifications: a lock or a watch on a read-only runtime file "
        "both bots see is a channel between them (flock and fcntl's lock commands, inotify, "
        "fanotify)",
        ("flock", "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_init",
         "fanotify_mark"),
    ),
    Group(
        "kernel keyrings: a named keyring is found by every process of a user namespace (as "
        "Docker's default profile refuses them)",
        ("keyctl", "add_key", "request_key"),
    ),
    Group(
        "io_uring: its operations (a shared futex wait and wake among them) run inside the "
        "kernel with no system call each, so no filter and no supervisor sees them",
        ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    ),
    Group(
        "the sandbox's own set-up (bubblewrap mounts the bot's file system and makes its "
        "namespaces before the bot runs): mounts, new namespaces, a new root; a bot has no "
        "privilege to use them",
        ("mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "sethostname", "setdomainname",
         "open_tree", "move_mount", "mount_setattr", "fsopen", "fsconfig", "fsmount", "fspick"),
    ),
)  # fmt: skip
SETUP_ONLY = REFUSED[-1].names  # allowed to the sandbox's own start, refused to the bot (seccomp.py, futexwait.py)

# Refused with ENOSYS and never named in a bot's log: every C library falls back from these
# at once (glibc's pthread_create and posix_spawn try clone3, whose flags sit in memory a
# filter cannot read, then use clone; the futex2 calls keep their private flags in memory too).
SILENT = ("clone3", "futex_waitv", "futex_wait", "futex_wake", "futex_requeue")

# fcntl commands: what the C libraries and runtimes use (duplicate, descriptor and status
# flags, ownership and signals, pipe sizes, seals, write hints) ...
FCNTL_COMMANDS = (0, 1, 2, 3, 4, 8, 9, 10, 11, 15, 16, 17, 1027, 1028, 1030, 1031, 1032, 1033, 1034, 1035, 1036, 1037, 1038)
# ... and the ones refused on purpose: record locks (F_GETLK, F_SETLK, F_SETLKW and their
# open-file-description forms), leases and directory notifications.
LOCK_COMMANDS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
LOCK_NAMES = {5: "F_GETLK", 6: "F_SETLK", 7: "F_SETLKW", 36: "F_OFD_GETLK", 37: "F_OFD_SETLK", 38: "F_OFD_SETLKW",
              1024: "F_SETLEASE", 1025: "F_GETLEASE", 1026: "F_NOTIFY"}  # fmt: skip
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, NETLINK_ROUTE = 1, 2, 10, 16, 0
SOCKET_FAMILIES = (AF_UNIX, AF_INET, AF_INET6)
FUTEX_PRIVATE_FLAG = 128
# clone's namespace flags (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; the
# kernel reads clone's flags on their low 32 bits, where all of them are)
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
LOW_32_BITS = 0xFFFFFFFF


@functools.cache
def allowed_names() -> frozenset[str]:
    """Every call on the allowlist (some with argument checks: the module's docstring)."""
    return frozenset(name for group in ALLOWED for name in group.names)


@functools.cache
def refused_names() -> frozenset[str]:
    """The calls refused on purpose, with ``EPERM`` (:data:`REFUSED`)."""
    return frozenset(name for group in REFUSED for name in group.names)


def refusal(name: str, command: int | None = None) -> int:
    """The errno a bot's call ``name`` gets when it is refused: ``EPERM`` for a call refused
    on purpose (:data:`REFUSED`, a lock command of ``fcntl``: ``command``, its second
    argument), ``ENOSYS`` for one that is just not on the list.

    >>> refusal("io_uring_setup") == errno.EPERM, refusal("ptrace") == errno.ENOSYS
    (True, True)
    """
    if name in refused_names() or (name == "fcntl" and command is not None and command & LOW_32_BITS in LOCK_COMMANDS):
        return errno.EPERM
    return errno.ENOSYS


def refused_line(name: str, command: int | None = None) -> str:
    """The line a bot's log gets the first time it is refused ``name``.

    >>> refused_line("io_uring_setup")
    'refused: io_uring_setup (not allowed for bots; docs/sandbox.md)'
    >>> refused_line("fcntl", 6)
    'refused: fcntl F_SETLK (not allowed for bots; docs/sandbox.md)'
    """
    shown = name
    if name == "fcntl" and command is not None:
        shown = f"fcntl {LOCK_NAMES.get(command & LOW_32_BITS, f'command {command & LOW_32_BITS}')}"
    elif name == "socket" and command is not None:
        shown = f"socket of family {command & LOW_32_BITS}"
    return f"refused: {shown} (not allowed for bots; {DOCS})"


def add_rule(rules: Any, action: int, name: str, *args: Any) -> None:
    """``rules.add_rule`` that skips a call this libseccomp does not know (older ones lack
    the newest calls: a call that cannot be named is never allowed)."""
    try:
        rules.add_rule(action, name, *args)
    except (ValueError, OSError):
        pass


def add_allowed(rules: Any, sc: Any, *, any_clone: bool = False) -> None:
    """Add the allowlist to ``rules`` (a ``pyseccomp.SyscallFilter`` whose default refuses):
    every name of :data:`ALLOWED` allowed, ``fcntl``, ``futex``, ``socket`` and ``clone``
    with their argument checks (``any_clone``: any flags, for the filter of the referee's
    spawning thread, whose bubblewrap makes the namespaces). ``sc``: the pyseccomp module.
    The filter looks a call up in a binary tree where libseccomp can build one (2.5+), not
    along a list of some 240 calls."""
    try:
        rules.set_attr(sc.Attr.CTL_OPTIMIZE, 2)
    except (AttributeError, OSError):
        pass
    checked = {"fcntl", "futex", "socket", "clone"}
    for name in sorted(allowed_names() - checked):
        add_rule(rules, sc.ALLOW, name)
    for command in FCNTL_COMMANDS:
        add_rule(rules, sc.ALLOW, "fcntl", sc.Arg(1, sc.MASKED_EQ, LOW_32_BITS, command))
    add_rule(rules, sc.ALLOW, "futex", sc.Arg(1, sc.MASKED_EQ, FUTEX_PRIVATE_FLAG, FUTEX_PRIVATE_FLAG))
    for family in SOCKET_FAMILIES:
        add_rule(rules, sc.ALLOW, "socket", sc.Arg(0, sc.MASKED_EQ, LOW_32_BITS, family))
    add_rule(rules, sc.ALLOW, "socket", sc.Arg(0, sc.MASKED_EQ, LOW_32_BITS, AF_NETLINK), sc.Arg(2, sc.MASKED_EQ, LOW_32_BITS, NETLINK_ROUTE))
    if any_clone:
        add_rule(rules, sc.ALLOW, "clone")
    else:
        mask = 0
        for flag in NAMESPACE_FLAGS:
            mask |= flag
        add_rule(rules, sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, mask, 0))


def refuse_namespaces(rules: Any, sc: Any) -> None:
    """``clone`` into any new namespace fails with ``EPERM`` (a rule per flag)."""
    for flag in NAMESPACE_FLAGS:
        add_rule(rules, sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
