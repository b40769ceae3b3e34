"""The referee as a normal user, wherever the tests run (README "Where it runs"): the one
way the tests do it (the session fixture ``as_normal_user`` of tests/conftest.py).

Run as a normal user, the tests run the referee as themselves. Run as root (CI, our
machines), they run it as a throwaway uid: one with no account and no process, held by a
lock so that two test runs never share it (nothing is added to /etc/passwd, nothing is left
behind), with a Python other users can reach (a virtualenv of the system's Python holding
the referee and everything it needs: tests/sandbox/runtime.py) and a home of its own in
/tmp."""

from __future__ import annotations

import contextlib
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.sandbox.uids import uids_running
from tests.sandbox import runtime

THROWAWAY_UIDS = range(40000, 60000)  # below the sandbox's slot uids (61000-61183) and nobody (65534)
LOCKS = Path(tempfile.gettempdir()) / "kw-test-uids"


@dataclass(frozen=True)
class NormalUser:
    """Who runs the referee: ``uid``, its ``python``, a ``home`` it owns (mode 0755)."""

    uid: int
    python: str
    home: Path

    def run(
        self, *args: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """``python -m referee ARGS`` as this user, in ``cwd`` (which it must reach)."""
        return self.command([self.python, "-m", "referee", *args], cwd=cwd, env=env, timeout=timeout)

    def command(
        self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` as this user, in ``cwd`` (which it must reach), with a plain environment."""
        variables = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "COLUMNS": "200",
            "NO_COLOR": "1",
            **(env or {}),
        }
        argv = list(argv)
        if self.uid != os.geteuid():
            argv = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--", *argv]
        return subprocess.run(argv, cwd=cwd, env=variables, capture_output=True, text=True, timeout=timeout)

    def give(self, *paths: Path) -> None:
        """Make ``paths`` (files or folders made by the tests, with what is in them) this user's."""
        if self.uid != os.geteuid():
            for path in paths:
                for item in [path, *path.rglob("*")] if path.is_dir() and not path.is_symlink() else [path]:
                    os.lchown(item, self.uid, self.uid)


def _free_uid() -> tuple[int, int]:
    """A uid with no account and no process, and the descriptor of its lock."""
    import fcntl

    LOCKS.mkdir(mode=0o755, exist_ok=True)
    running = uids_running()
    for uid in random.sample(THROWAWAY_UIDS, 200):
        with contextlib.suppress(KeyError):
            pwd.getpwuid(uid)
            continue
        if uid in running:
            continue
        fd = os.open(LOCKS / f"{uid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return uid, fd
    raise RuntimeError("no free throwaway uid")


@contextlib.contextmanager
def normal_user() -> Iterator[NormalUser]:
    """A :class:`NormalUser`: ourselves when not root, else a throwaway uid (see the module
    docstring). Raises runtime.RuntimeProblem where no Python other users can reach can be
    built."""
    home = Path(tempfile.mkdtemp(prefix="kw-user-", dir="/tmp"))
    home.chmod(0o755)
    if os.geteuid() != 0:
        try:
            yield NormalUser(os.geteuid(), sys.executable, home)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        return
    uid, lock = _free_uid()
    built = runtime.reachable_directory("kw-user-python-")
    try:
        python = runtime.build_reachable_python(built, (runtime.REFEREE_DISTRIBUTION,))
        os.chown(home, uid, uid)
        yield NormalUser(uid, str(python), home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(built, ignore_errors=True)
        os.close(lock)
