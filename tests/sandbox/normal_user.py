"""A normal (non-root) user to run a referee as, for the tests that must hold "where users
are" (a teacher's own account, bubblewrap in a user namespace), not only as root.

Where the tests run as a normal user, that is the user itself. Under root, a fresh user is
made with ``useradd`` (removed with ``userdel`` after) and given a Python of its own that it
can reach: a virtualenv of the system's Python holding the referee and everything it needs
(tests/sandbox/runtime.py), since the referee's own may lie under root's home."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.sandbox import runtime

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


class NoNormalUser(Exception):
    """No normal user can run a referee here; the message says why."""


@dataclass
class NormalUser:
    """``uid``/``gid`` and ``python`` (its interpreter, with the referee importable);
    ``name`` and ``home`` are set only for a user made here (removed by :meth:`remove`)."""

    uid: int
    gid: int
    python: str
    name: str | None = None
    home: Path | None = None

    def give(self, *paths: Path) -> None:
        """Make ``paths`` (directories, with what is in them) this user's."""
        for path in paths:
            for root, dirs, files in os.walk(path):
                for entry in [root, *(os.path.join(root, name) for name in dirs + files)]:
                    os.lchown(entry, self.uid, self.gid)

    def referee(self, args: Sequence[str], *, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``python -m referee ARGS`` run as this user in ``cwd``, with a plain environment."""
        env = {"PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "COLUMNS": "200", "NO_COLOR": "1", "HOME": str(self.home or cwd)}
        env.update({key: os.environ[key] for key in ("CI", "GRPC_VERBOSITY") if key in os.environ})
        argv = [self.python, "-m", "referee", *args]
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
            argv = [setpriv, f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--", *argv]
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)

    def remove(self) -> None:
        if self.name is not None:
            subprocess.run(["userdel", self.name], capture_output=True)
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)


def normal_user() -> NormalUser:
    """This user when it is not root; else a new one with a reachable Python (remove it
    with :meth:`NormalUser.remove`). Raises NoNormalUser when that cannot be had."""
    if os.geteuid() != 0:
        return NormalUser(os.getuid(), os.getgid(), sys.executable)
    if shutil.which("useradd") is None:
        raise NoNormalUser("running as root without useradd: no normal user to run a referee as")
    name = f"kwt{secrets.token_hex(4)}"
    made = subprocess.run(["useradd", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name], capture_output=True, text=True)
    if made.returncode != 0:
        raise NoNormalUser(f"useradd {name} failed: {made.stderr.strip()}")
    import pwd

    entry = pwd.getpwnam(name)
    home = runtime.reachable_directory("kwt-python-")
    user = NormalUser(entry.pw_uid, entry.pw_gid, "", name, home)
    try:
        user.python = str(runtime.build_reachable_python(home, (runtime.REFEREE_DISTRIBUTION,)))
    except runtime.RuntimeProblem as error:
        user.remove()
        raise NoNormalUser(f"no Python the user {name} can reach: {error}") from error
    return user
