"""A bot started through a wrapper is the runtime it starts (issue 37): a script's ``#!``
line or the ``node``/``java`` a shell script runs tells it, so it gets what that runtime
needs in the sandbox; its memory limit is ``RLIMIT_DATA``, the same whatever starts it."""

from __future__ import annotations

import resource
import shutil
from pathlib import Path

import pytest

from referee.sandbox import limits
from referee.sandbox.command import jvm_config_dirs, resolve_command, script_runtime
from referee.sandbox.settings import MiB, SandboxSettings


@pytest.mark.parametrize(
    ("text", "runtime", "program"),
    [
        ("#!/usr/bin/env node\n'use strict';\n", "node", "node"),
        ("#!/usr/bin/env -S node --max-old-space-size=200\n", "node", "node"),
        ("#!/usr/local/bin/node\n", "node", "/usr/local/bin/node"),
        ('#!/bin/sh\ncd "$(dirname "$0")"\nexec node bot.js\n', "node", "node"),
        ("#!/bin/bash\n# run with java, not node\nexec java -cp build:lib/* Main\n", "java", "java"),
        ("#!/bin/sh\nset -e\n/usr/lib/jvm/java-17-openjdk-amd64/bin/java -jar bot.jar\n", "java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"),
        ("#!/bin/sh\nexec ./kwhist_cpp_bot\n", "other", None),
        ("#!/usr/bin/env python3\n", "other", None),
        ("\x7fELF binary", "other", None),
    ],
)
def test_a_script_names_the_runtime_it_starts(text: str, runtime: str, program: str | None, tmp_path: Path) -> None:
    script = tmp_path / "run"
    script.write_text(text)
    assert script_runtime(script) == (runtime, program)


def test_a_run_sh_that_runs_java_gets_the_jvms_configuration(tmp_path: Path) -> None:
    java = shutil.which("java")
    if java is None:
        pytest.skip("java is not installed")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\nexec java -jar bot.jar\n")
    script.chmod(0o755)
    resolved = resolve_command(["./run.sh"], name="wrapped", bot_dir=tmp_path)
    assert resolved.argv == (str(script),) and resolved.runtime == "java"
    assert set(jvm_config_dirs(Path(java))) <= set(resolved.runtime_paths)


def test_memory_is_bounded_by_what_a_bot_commits_for_every_runtime() -> None:
    settings = SandboxSettings(memory_mb=300)
    set_ = {limit: (soft, hard) for limit, soft, hard in limits.rlimits(settings, memory=True, nproc=None)}
    assert set_[resource.RLIMIT_DATA] == (300 * MiB, 300 * MiB)
    assert resource.RLIMIT_AS not in set_, "address space is not bounded: V8, the JVM and Go reserve far more than they use"
    assert resource.RLIMIT_DATA not in {limit for limit, _, _ in limits.rlimits(settings, memory=False, nproc=None)}
    assert limits.runtime_env(settings) == {"JAVA_TOOL_OPTIONS": "-XX:MaxRAM=300m"}
