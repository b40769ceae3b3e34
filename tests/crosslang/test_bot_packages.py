"""`make bots` on a machine without the sample bots' toolchains (issue 37): as root with
apt-get it installs every package the four samples need, in one apt-get; anyone else gets
one line per language naming what to install, and a non-zero exit. The machine is faked
(the tests cannot uninstall system packages): a PATH that holds none of the toolchains, and
a fake ``dpkg``, ``apt-get`` and ``id`` that keep the installed packages in a file."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "sample_bots" / "packages.sh"
LANGUAGES = ("node", "cpp", "go", "java")
UTILITIES = ("sort", "tr", "sed", "grep", "cat", "sh", "dirname")  # what the script and the fakes use

FAKE_DPKG = """#!/bin/sh
[ "$1" = -s ] && grep -qx "$2" "$FAKE_INSTALLED"
"""
FAKE_APT_GET = """#!/bin/sh
echo "apt-get $*" >> "$FAKE_LOG"
[ "$1" = install ] || exit 0
for word in "$@"; do
  case "$word" in -*|install) ;; *) echo "$word" >> "$FAKE_INSTALLED" ;; esac
done
"""
FAKE_ID = """#!/bin/sh
echo "$FAKE_UID"
"""


@dataclass
class Machine:
    """A fake machine: ``bin`` is its whole PATH."""

    bin: Path
    installed: Path
    log: Path

    def run(self, argv: list[str], *, uid: int, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
        env = {"PATH": str(self.bin), "FAKE_UID": str(uid), "FAKE_INSTALLED": str(self.installed), "FAKE_LOG": str(self.log), "LANG": "C.UTF-8"}
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)

    def apt_calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


def packages(language: str) -> list[str]:
    done = subprocess.run([str(SCRIPT), "--list", language], capture_output=True, text=True, check=True)
    return done.stdout.split()


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    """No toolchain on PATH; ``debian``: dpkg and apt-get (fakes) are there."""
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in UTILITIES:
        found = shutil.which(name)
        assert found is not None, name
        (fake / name).symlink_to(found)
    for name, text in (("dpkg", FAKE_DPKG), ("apt-get", FAKE_APT_GET), ("id", FAKE_ID)):
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    installed = tmp_path / "installed"
    installed.write_text("")
    return Machine(fake, installed, tmp_path / "apt.log")


def test_as_root_the_missing_packages_of_every_language_are_installed_in_one_apt_get(machine: Machine) -> None:
    done = machine.run([str(SCRIPT), *LANGUAGES], uid=0)
    assert done.returncode == 0, done.stdout + done.stderr
    wanted = sorted({package for language in LANGUAGES for package in packages(language)})
    assert done.stdout.strip() == f"bots: installing {' '.join(wanted)} (apt-get)"
    calls = machine.apt_calls()
    assert calls == ["apt-get update -qq", f"apt-get install -y -qq {' '.join(wanted)}"]
    assert sorted(machine.installed.read_text().split()) == wanted
    again = machine.run([str(SCRIPT), *LANGUAGES], uid=0)
    assert again.returncode == 0 and again.stdout == "" and machine.apt_calls() == calls, "nothing left to install"


def test_as_root_one_language_installs_only_its_own(machine: Machine) -> None:
    machine.installed.write_text("protobuf-compiler\n")
    done = machine.run([str(SCRIPT), "go"], uid=0)
    assert done.returncode == 0, done.stderr
    assert machine.apt_calls()[-1] == f"apt-get install -y -qq {' '.join(sorted(set(packages('go')) - {'protobuf-compiler'}))}"


def test_a_normal_user_is_told_one_line_per_language_and_the_build_stops(machine: Machine) -> None:
    machine.installed.write_text("nodejs\nnpm\ng++\n")
    done = machine.run([str(SCRIPT), *LANGUAGES], uid=1000)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == ["bots-cpp", "bots-go", "bots-java"], "node has all it needs"
    cpp = [package for package in packages("cpp") if package != "g++"]
    assert lines[0] == f"bots-cpp: missing Debian packages: {' '.join(cpp)} (as root: apt-get install {' '.join(cpp)})"
    assert machine.apt_calls() == [], "nothing was installed"


def test_make_bots_as_a_normal_user_stops_before_building_anything(machine: Machine) -> None:
    make = shutil.which("make")
    assert make is not None
    (machine.bin / "make").symlink_to(make)
    done = machine.run([make, "--no-print-directory", "bots"], uid=1000)
    assert done.returncode != 0
    told = [line for line in done.stderr.splitlines() if line.startswith("bots-")]
    assert [line.split(":")[0] for line in told] == [f"bots-{language}" for language in LANGUAGES]
    assert "npm ci" not in done.stdout and "cmake" not in done.stdout, "no build was started"
    single = machine.run([make, "--no-print-directory", "bots-java"], uid=1000)
    assert single.returncode != 0 and [line.split(":")[0] for line in single.stderr.splitlines() if line.startswith("bots-")] == ["bots-java"]


def test_without_dpkg_the_missing_programs_are_named(machine: Machine) -> None:
    (machine.bin / "dpkg").unlink()
    (machine.bin / "apt-get").unlink()
    done = machine.run([str(SCRIPT), "go", "node"], uid=0)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0].startswith("bots-go: missing programs: go protoc protoc-gen-go protoc-gen-go-grpc (on Debian or Ubuntu: apt-get install golang-go")
    assert lines[1].startswith("bots-node: missing programs: node npm")


def test_the_readme_lists_each_languages_packages() -> None:
    readme = (REPO / "README.md").read_text()
    for language in LANGUAGES:
        assert " ".join(packages(language)) in readme, f"README.md lists the {language} packages as packages.sh has them"
    assert os.access(SCRIPT, os.X_OK)
