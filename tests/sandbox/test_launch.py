"""Launching: the socket address, exit details, command errors, modes and the bwrap argv."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from referee.errors import BotError, ConfigError, HostError, SandboxError
from referee.sandbox import NONE_WARNING, RLIMITS_AS_YOU_WARNING, RLIMITS_WARNING, SandboxSettings, launch, modes, resolve_mode
from referee.sandbox.bwrap import SLOT_UIDS, bwrap_argv
from referee.sandbox.command import resolve_command
from referee.sandbox.workdir import MAX_SOCKET_PATH, PrivateDir
from tests.sandbox.helpers import Launcher, log_text, next_slot, wait_exit, wait_for, wait_log

pytestmark = [pytest.mark.sandbox, pytest.mark.timeout(60)]


def _say_hello(address: str) -> str:
    path = address.removeprefix("unix:")
    assert path.startswith("/") and len(os.fsencode(path)) <= MAX_SOCKET_PATH
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(path)
        return client.makefile().readline()


@pytest.mark.parametrize("mode", ["bwrap", "rlimits", "none"])
def test_the_bot_serves_on_kwhist_listen_and_the_referee_dials_address(
    start: Launcher, mode: str, bwrap_ok: bool, request: pytest.FixtureRequest
) -> None:
    if mode != "none":
        request.getfixturevalue("needs_bwrap" if mode == "bwrap" else "rlimits_python")
    process = start("hello.py", mode=mode)
    assert "READY" in wait_log(process, "READY")
    answer = _say_hello(process.address)
    if mode != "none" and os.geteuid() == 0:
        assert answer == f"hello from {process.uid}\n"  # root is dropped ("Root is a trap"), in both modes
        assert process.uid in SLOT_UIDS
    else:
        assert answer.startswith("hello from")
    assert wait_exit(process) == 0
    assert process.exit_detail() == "exited with code 0"


@pytest.mark.crosslang
@pytest.mark.parametrize("mode", ["bwrap", "rlimits"])
def test_a_node_bot_serves_too(start: Launcher, mode: str, request: pytest.FixtureRequest) -> None:
    if shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is not installed")
        pytest.skip("node is not installed")
    if mode != "none":
        request.getfixturevalue("needs_bwrap" if mode == "bwrap" else "rlimits_python")
    process = start("hello.js", mode=mode, command=["node", "hello.js"])
    assert "READY" in wait_log(process, "READY"), process.stderr_head()
    assert _say_hello(process.address).startswith("hello from node")
    assert wait_exit(process) == 0


def test_a_long_run_dir_moves_the_socket_to_a_short_path(run_dir: Path, bot_dir: Path) -> None:
    deep = run_dir / ("d" * 60) / ("e" * 60)
    process = launch(
        ["python", "hello.py"],
        name="deep",
        slot=next_slot(),
        bot_dir=bot_dir,
        run_dir=deep,
        settings=SandboxSettings(mode="none"),
    )
    try:
        assert process.home is not None and str(process.home).startswith(f"/tmp/kwhist-{os.getpid()}-")
        wait_log(process, "READY")
        assert _say_hello(process.address).startswith("hello from")
        assert process.log_path.parent == deep
    finally:
        process.kill()


@pytest.mark.parametrize("mode", ["bwrap", "rlimits", "none"])
def test_exit_code_and_stderr_head(start: Launcher, mode: str, request: pytest.FixtureRequest) -> None:
    if mode != "none":
        request.getfixturevalue("needs_bwrap" if mode == "bwrap" else "rlimits_python")
    process = start("exit_code.py", "3", mode=mode)
    assert wait_exit(process) == 3
    assert process.exit_detail() == "exited with code 3"
    assert process.stderr_head() == "bad things happened here\n"
    assert process.stderr_head(3) == "bad"


def test_a_signal_is_named(start: Launcher) -> None:
    process = start("sleeper.py", mode="none")
    wait_log(process, "READY")
    os.kill(process.pid, 15)
    wait_exit(process)
    assert process.exit_detail() == "killed by signal SIGTERM"


def test_a_running_process_has_no_exit_detail_and_a_second_launch_in_its_slot_is_refused(
    start: Launcher, bot_dir: Path, run_dir: Path
) -> None:
    process = start("sleeper.py", mode="none")
    assert process.poll() is None and process.exit_detail() is None
    with pytest.raises(ValueError, match="slot"):
        launch(["python", "sleeper.py"], name="x", slot=process.slot, bot_dir=bot_dir, run_dir=run_dir,
               settings=SandboxSettings(mode="rlimits"))


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["no-such-bot-binary"], "bot 'b': command 'no-such-bot-binary' not found"),
        (["./missing.sh"], "bot 'b': command './missing.sh' not found"),
        (["hello.py"], "bot 'b': command 'hello.py' is not an executable file"),
        ([], "bot 'b': empty command"),
    ],
)
def test_a_command_that_cannot_run_is_a_bot_error(command: list[str], message: str, bot_dir: Path, run_dir: Path) -> None:
    with pytest.raises(BotError, match="^" + message.replace(".", r"\.")):
        launch(command, name="b", slot=next_slot(), bot_dir=bot_dir, run_dir=run_dir,
               settings=SandboxSettings(mode="rlimits"))


def test_a_missing_bot_dir_is_a_bot_error(run_dir: Path) -> None:
    with pytest.raises(BotError, match="directory /nonexistent/bot does not exist"):
        launch(["python", "x.py"], name="b", slot=next_slot(), bot_dir=Path("/nonexistent/bot"), run_dir=run_dir,
               settings=SandboxSettings(mode="rlimits"))


def test_commands_resolve_python_node_and_paths(bot_dir: Path) -> None:
    import sys

    python = resolve_command(["python3", "bot.py"], name="b", bot_dir=bot_dir)
    assert python.argv == (sys.executable, "bot.py") and python.runtime == "python"
    assert Path(sys.prefix) in python.runtime_paths
    true = resolve_command(["true"], name="b", bot_dir=bot_dir)
    assert true.argv[0].endswith("/true") and true.runtime == "other"


def test_resolve_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modes, "limits_warning", lambda mode: None)  # what this host bounds: tested apart
    own = RLIMITS_WARNING if os.geteuid() == 0 else RLIMITS_AS_YOU_WARNING
    assert resolve_mode(SandboxSettings(mode="none")) == ("none", NONE_WARNING)
    assert resolve_mode(SandboxSettings(mode="rlimits")) == ("rlimits", own)
    monkeypatch.setattr(modes, "bwrap_problem", lambda: None)
    assert resolve_mode(SandboxSettings(mode="auto"))[0] == "bwrap"
    assert resolve_mode(SandboxSettings(mode="bwrap"))[0] == "bwrap"
    assert modes.league_mode(SandboxSettings(mode="auto"), "night.toml")[0] == "bwrap"
    monkeypatch.setattr(modes, "bwrap_problem", lambda: "bubblewrap is not installed (install it)")
    mode, warning = resolve_mode(SandboxSettings(mode="auto"))
    assert mode == "rlimits" and warning is not None and warning.startswith(own)
    with pytest.raises(SandboxError, match='bubblewrap is not installed.*mode = "rlimits"') as raised:
        resolve_mode(SandboxSettings(mode="bwrap"))
    assert "\n" not in str(raised.value)
    with pytest.raises(SandboxError, match='bubblewrap is not installed.*set \\[sandbox\\] mode = "rlimits" in night.toml') as raised:
        modes.league_mode(SandboxSettings(mode="auto"), "night.toml")
    assert "\n" not in str(raised.value)
    assert modes.league_mode(SandboxSettings(mode="rlimits"), "night.toml") == ("rlimits", own)


def test_settings_reject_nonsense() -> None:
    with pytest.raises(ConfigError, match=r"\[sandbox\] memory_mb"):
        SandboxSettings(memory_mb=0)
    with pytest.raises(ConfigError, match=r"\[sandbox\] mode"):
        SandboxSettings(mode="docker")  # type: ignore[arg-type]


def test_the_bwrap_argv_follows_the_recipe(bot_dir: Path) -> None:
    resolved = resolve_command(["python", "hello.py"], name="b", bot_dir=bot_dir)
    private = PrivateDir(Path("/tmp/kws-private"), Path("/bot"))
    extra = tempfile.mkdtemp(prefix="kws-ro-")
    try:
        argv = bwrap_argv(
            resolved, bot_dir=bot_dir, private=private, env={"KWHIST_LISTEN": "unix:/bot/bot.sock"}, uid=61007,
            settings=SandboxSettings(tmp_mb=8, ro_paths=(extra,)),
        )
    finally:
        os.rmdir(extra)
    joined = " ".join(argv)
    for flag in ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                 "--new-session", "--clearenv", "--proc /proc"):
        assert flag in argv or flag in joined
    assert f"--ro-bind {bot_dir} {bot_dir}" in joined
    assert f"--ro-bind {extra} {extra}" in joined
    assert f"--perms 1777 --size {64 * 1024 * 1024} --tmpfs /bot" in joined, "the home is a bounded tmpfs"
    assert "--bind " not in joined, "nothing of the host is writable"
    assert f"--size {8 * 1024 * 1024} --tmpfs /tmp" in joined
    assert "--setenv KWHIST_LISTEN unix:/bot/bot.sock" in joined
    assert "--reuid=61007 --regid=61007 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs --" in joined
    assert argv[-2:] == list(resolved.argv)
    with pytest.raises(ConfigError, match="ro_paths: /no/such/path does not exist"):
        bwrap_argv(resolved, bot_dir=bot_dir, private=private, env={}, uid=None,
                   settings=SandboxSettings(ro_paths=("/no/such/path",)))


def test_a_root_referee_never_runs_an_rlimits_bot_as_root(bot_dir: Path, run_dir: Path, tmp_path: Path) -> None:
    """Issue 12, class 4: a runtime under a 0700 directory (as Python under root's home)
    cannot be reached by a slot uid; the rlimits mode refuses, saying how to fix it, rather
    than run the bot as root: a HostError (the host's trouble, never a fault of the bot)."""
    if os.geteuid() != 0:
        pytest.skip("only a root referee could run a bot as root")
    hidden = tmp_path / "home0700"
    (hidden / "bin").mkdir(parents=True)
    hidden.chmod(0o700)
    runtime = hidden / "bin" / "interp"
    runtime.write_text("#!/bin/sh\nid -u > \"$HOME/uid\"; exec sleep 600\n")
    runtime.chmod(0o755)
    with pytest.raises(HostError, match=r"rlimits mode would have to run it as root: .*home0700.*mode = \"bwrap\""):
        launch([str(runtime)], name="b", slot=next_slot(), bot_dir=bot_dir, run_dir=run_dir,
               settings=SandboxSettings(mode="rlimits"))
    assert not list(run_dir.glob("b-*/uid")), "nothing ran"


@pytest.mark.parametrize("base", ["referee", "system"])
@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_a_virtualenv_interpreter_runs_as_given(
    mode: str, base: str, bot_dir: Path, run_dir: Path, request: pytest.FixtureRequest
) -> None:
    """Issue 11: ``/path/venv/bin/python`` runs that virtualenv (its ``sys.prefix``, its
    packages), not the interpreter it links to; under bwrap the virtualenv is mounted, also
    when it is one of the system's Python in /usr (as the rlimits tests' runtime is)."""
    import subprocess
    import sys

    from tests.sandbox.runtime import RuntimeProblem, system_python

    if mode == "bwrap":
        request.getfixturevalue("needs_bwrap")
    try:
        interpreter = sys.executable if base == "referee" else str(system_python())
    except RuntimeProblem as error:
        if os.environ.get("CI") == "true":
            pytest.fail(str(error))
        pytest.skip(str(error))
    venv = Path(tempfile.mkdtemp(prefix="kws-venv-", dir="/tmp"))
    try:
        venv.chmod(0o755)
        subprocess.run([interpreter, "-m", "venv", "--without-pip", str(venv / "v")], check=True, timeout=120)
        site = next((venv / "v" / "lib").glob("python3*/site-packages"))
        (site / "kws_marker.py").write_text("WHERE = 'the venv'\n")
        process = launch(
            [str(venv / "v" / "bin" / "python"), "-c", "import sys, kws_marker; print('PREFIX', sys.prefix, kws_marker.WHERE)"],
            name="venv", slot=next_slot(), bot_dir=bot_dir, run_dir=run_dir, settings=SandboxSettings(mode=mode),  # type: ignore[arg-type]
        )
        try:
            assert wait_exit(process) == 0, process.stderr_head()
            expected = f"PREFIX {venv / 'v'} the venv"  # the log's pump may write it just after the exit
            assert wait_for(lambda: expected in log_text(process)), log_text(process)
        finally:
            process.kill()
    finally:
        shutil.rmtree(venv, ignore_errors=True)
