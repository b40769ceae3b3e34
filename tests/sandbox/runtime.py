"""A Python for test bots in the rlimits mode that a slot uid can reach.

A root referee runs each rlimits bot as a slot uid, never as root, and refuses a bot whose
runtime other users cannot reach (docs/sandbox.md "rlimits"): the referee's own Python under
root's home (pyenv, mode 0700) is such a runtime. There the tests build a virtualenv of the
system's ``python3.X`` (the same minor version, so the same ABI as the referee's packages)
in a fresh directory every uid can reach, holding copies of the packages the test bots
import: ``grpcio`` and ``protobuf`` with what they require, and the ``referee`` package (the
bot kit ``referee.botkit``)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import referee
from referee.sandbox.command import python_paths
from referee.sandbox.launch import rlimits_problem

BOT_DISTRIBUTIONS = ("grpcio", "protobuf")
"""What the test bots import besides the standard library and ``referee`` (with what these require)."""

SYSTEM_BIN = "/usr/local/bin:/usr/bin:/bin"
CHECK = "import grpc, google.protobuf, referee.botkit, referee.botkit.server, referee.transport.codec"


class RuntimeProblem(Exception):
    """The reachable runtime cannot be built here; the message says why and how to fix it."""


def own_python_problem() -> str | None:
    """Why the rlimits mode refuses a bot run with a bare ``python`` (the referee's own
    interpreter) here; None where it runs it."""
    return rlimits_problem(list(python_paths()))


def system_python() -> Path:
    """The system's ``python3.X`` of the referee's own minor version, on the system ``PATH``
    and reachable by other users. Raises RuntimeProblem when there is none."""
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = shutil.which(name, path=SYSTEM_BIN)
    if found is None:
        raise RuntimeProblem(f"no {name} in {SYSTEM_BIN} (install Debian's {name} and {name}-venv, as .ci/run does)")
    real = Path(os.path.realpath(found))
    problem = rlimits_problem([Path(found).parent, real.parent, real.parent.parent])
    if problem is not None:
        raise RuntimeProblem(f"{found}: {problem}")
    return Path(found)


def referee_distributions() -> tuple[str, ...]:
    """What the referee itself needs (its ``[project] dependencies``, no extras)."""
    requires = importlib.metadata.distribution("knockout-whist-referee").requires or []
    return tuple(
        requirement.name
        for requirement in map(Requirement, requires)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""})
    )


def build_reachable_python(directory: Path, distributions: Iterable[str] = BOT_DISTRIBUTIONS) -> Path:
    """Build the virtualenv ``directory/v`` (``directory`` fresh, mode 0755, every directory
    above it o+x) of :func:`system_python` with ``distributions`` (default: the bots'
    packages; :func:`referee_distributions` for a referee run as another user) and what they
    require copied into it (hard links where the file system allows); -> its ``bin/python``.
    Raises RuntimeProblem (with the failing step's output) when a step fails or the result
    cannot import the bot kit or is not reachable by other users."""
    venv = directory / "v"
    _run([str(system_python()), "-m", "venv", "--without-pip", str(venv)], "create the virtualenv")
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], "find its site-packages").strip())
    for distribution in _with_requirements(distributions):
        _copy_distribution(distribution, site)
    package = Path(os.path.realpath(referee.__file__)).parent
    shutil.copytree(package, site / "referee", ignore=shutil.ignore_patterns("__pycache__"))
    for path in [venv, *venv.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | (0o555 if path.is_dir() or path.stat().st_mode & 0o100 else 0o444))
    _run([str(python), "-c", CHECK], "import the bot kit")
    problem = rlimits_problem([directory, venv / "bin", site])
    if problem is not None:
        raise RuntimeProblem(problem)
    return python


def _run(argv: list[str], step: str) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd="/")
    except (OSError, subprocess.SubprocessError) as error:
        raise RuntimeProblem(f"cannot {step}: {' '.join(argv)}: {error}") from error
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeProblem(f"cannot {step}: {' '.join(argv)} exited {done.returncode}: {' / '.join(tail)}")
    return done.stdout


def _with_requirements(names: Iterable[str]) -> list[importlib.metadata.Distribution]:
    """The installed distributions ``names`` and, transitively, what they require (no extras)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError as error:
            raise RuntimeProblem(f"{name} is not installed in the referee's environment (make .venv/.installed)") from error
        found[name] = distribution
        for line in distribution.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(found.values())


def _copy_distribution(distribution: importlib.metadata.Distribution, site: Path) -> None:
    """Copy the files a distribution installed into ``site-packages`` (its RECORD), not its
    scripts (outside ``site-packages``) nor byte code."""
    for file in distribution.files or []:
        if file.parts[0] == ".." or "__pycache__" in file.parts:
            continue
        source = Path(str(distribution.locate_file(file)))
        if not source.is_file():
            continue
        target = site / Path(*file.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)  # the same file, read-only to the bots: no copy needed
        except OSError:
            shutil.copy2(source, target)


def reachable_directory(prefix: str) -> Path:
    """A fresh directory in /tmp (every directory above it o+x), mode 0755."""
    directory = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    directory.chmod(0o755)
    return directory
