"""``referee check-bot`` end to end: real bot processes over real gRPC, through the
command line. Both sample bots pass; each misbehaving bot fails on the right line,
saying what it was asked, what it answered and what would have been legal."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO, processes_matching, run_referee
from tests.transport.helpers import BotLauncher

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"
FAULT_BOTS = REPO / "tests" / "faults" / "bots"
LINE = re.compile(r"^(PASS|FAIL|SKIP)  (.+?) — (.*)$")


def check(tmp: Path, *args: str) -> tuple[int, dict[str, tuple[str, str]], str]:
    """Run check-bot; returns (exit code, title -> (PASS|FAIL|SKIP, summary), stdout)."""
    done = run_referee("check-bot", "--logs", str(tmp / "logs"), "--startup-ms", "30000", *args)
    lines: dict[str, tuple[str, str]] = {}
    for line in done.stdout.splitlines():
        match = LINE.match(line)
        if match:
            lines[match.group(2)] = (match.group(1), match.group(3))
    assert lines, done.stdout + done.stderr
    return done.returncode, lines, done.stdout


def failed(lines: dict[str, tuple[str, str]]) -> set[str]:
    return {title for title, (status, _) in lines.items() if status != "PASS"}


def test_both_sample_bots_pass_every_check_on_the_path_they_offer(short_tmp: Path) -> None:
    for script, flags, path in (("heuristic_bot.py", (), "the Play stream"), ("random_bot.py", ("--unary",), "unary Decide")):
        code, lines, out = check(short_tmp, "--", "python", str(SAMPLES / script), *flags)
        assert code == 0, out
        assert not failed(lines), out
        assert lines["speaks protocol 1.x"][1].endswith(f"; answers decisions over {path}"), "it says how the bot was asked"
        assert len(lines) == 16
        assert "plays 20 games against the sample bots without a fault" in lines
        assert "all 16 checks passed" in out
    assert not processes_matching(str(short_tmp)), "every bot process (its sandbox names our log folder) is gone"


def test_off_suit_when_it_could_follow_fails_follow_suit(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "offsuit_bot.py"))
    assert code == 1
    assert lines["follows suit"][0] == "FAIL" and lines["follows suit"][1].startswith("illegal: 4S is not legal here")
    assert lines["leads a trick"][0] == "PASS" and lines["plays when void in the led suit"][0] == "PASS"
    block = out.split("follows suit —", 1)[1]
    assert "asked: asked to play a card as seat 1 in round 1" in block and "trick so far: seat 0 7C" in block
    assert "answered: 4S" in block
    assert "expected: one of: 3C KC — holding the led suit, it must follow suit (rules.md R12)" in block


def test_a_bot_that_never_names_trump_fails_name_trump(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "no_trump_bot.py"))
    assert code == 1
    status, summary = lines["names trump after the deal"]
    assert status == "FAIL" and summary.startswith("malformed: reply sets play but the decision asked was CHOOSE_TRUMP")
    block = out.split("names trump after the deal —", 1)[1]
    assert "asked: asked to name trump as seat 0 in round 2 (6 cards), trump not named yet" in block
    assert 'answered: {"play":{"rank":"QUEEN","suit":"SPADES"}}' in block
    assert "expected: one of: trump S trump H trump D trump C" in block
    assert lines["follows suit"][0] == "PASS"


def test_a_dog_passing_on_its_last_trick_fails_that_line_only(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "dog_pass_last_bot.py"))
    assert code == 1
    assert lines["a dog on its last trick"][0] == "FAIL"
    assert lines["a dog on its last trick"][1] == "illegal: pass is not legal here"
    assert lines["a dog chooses to pass or play"][0] == "PASS", "passing before the last trick is legal"
    block = out.split("a dog on its last trick —", 1)[1]
    assert "on the dog's life, trick 6 of 6" in block and "answered: pass" in block
    assert "expected: one of: 5C — a dog may not pass on the last trick of the round (rules.md R18)" in block
    assert lines["a dog in the last round"] == ("FAIL", "illegal: pass is not legal here"), "the last round's trick is the dog's last too"
    assert failed(lines) <= {"a dog on its last trick", "a dog in the last round", "plays 2 games against the sample bots without a fault"}


def test_hello_failures_skip_the_rest(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--", "python", str(FAULT_BOTS / "dies_at_start_bot.py"))
    assert code == 1
    status, summary = lines["starts and answers Hello within startup_ms (30000 ms)"]
    assert status == "FAIL" and "exited with code 7" in summary and "giving up before serving" in summary
    assert {status for title, (status, _) in lines.items() if not title.startswith("starts")} == {"SKIP"}

    code, lines, out = check(short_tmp, "--", "python", str(FAULT_BOTS / "old_protocol_bot.py"))
    assert code == 1
    assert lines["starts and answers Hello within startup_ms (30000 ms)"][0] == "PASS"
    assert lines["speaks protocol 1.x"][0] == "FAIL" and "speaks protocol 2.0, the referee 1.1" in lines["speaks protocol 1.x"][1]
    assert '"protocol_major":2' in out


def test_slow_answers_fail_on_time(short_tmp: Path) -> None:
    code, lines, out = check(
        short_tmp, "--games", "1", "--move-ms", "200", "--grace-ms", "50", "--", "python", str(FAULT_BOTS / "timeout_bot.py"), "--sleep-ms", "800"
    )
    assert code == 1
    assert lines["answers on time"][0] == "FAIL"
    assert lines["leads a trick"][0] == "FAIL" and lines["leads a trick"][1].startswith("timeout")
    status, summary = lines["follows suit"]
    assert status == "FAIL" and "most likely the bot was still at work on an earlier request ('leads a trick'" in summary
    assert "DEADLINE_EXCEEDED" not in out, "the gRPC status stays in the bot's log"


def test_a_bot_that_crashes_only_as_a_leading_dog_fails(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "dog_lead_crash_bot.py"))
    assert code == 1, out
    status, summary = lines["a dog that is due to lead"]
    assert status == "FAIL" and summary.startswith("crash: the connection to the bot was lost") and "exited with code 5" in summary
    assert lines["a dog chooses to pass or play"][0] == "PASS" and lines["a dog on its last trick"][0] == "PASS"
    assert lines["a dog after another dog passed"] == ("SKIP", "not asked: the bot crashed at 'dog-leads'")
    assert "UNAVAILABLE" not in out


def test_a_bot_already_running_is_checked_by_address(short_tmp: Path) -> None:
    launcher = BotLauncher(short_tmp)
    try:
        bot = launcher.start(SAMPLES / "random_bot.py")
        code, lines, out = check(short_tmp, "--games", "3", "--address", bot.address)
        assert code == 0, out
        assert lines["answers Hello within startup_ms (30000 ms)"][0] == "PASS"
        assert bot.process.poll() is None, "a bot given by address is not ours to stop"
    finally:
        launcher.close()


def test_usage_errors_are_one_line() -> None:
    done = run_referee("check-bot")
    assert done.returncode == 2 and "give the bot's command after --" in done.stderr
    done = run_referee("check-bot", "--address", "127.0.0.1:1", "--", "python", "x.py")
    assert done.returncode == 2 and "not both" in done.stderr


def test_rule_options_set_the_rules_of_the_games(short_tmp: Path) -> None:
    bot = str(BOTS / "short_game_bot.py")
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", bot)
    assert code == 0, out
    code, lines, out = check(short_tmp, "--games", "2", "--rule", "start_hand_size=3", "--", "python", bot)
    assert code == 1, out
    assert failed(lines) == {"plays 2 games against the sample bots without a fault"}, out
    assert "malformed" in lines["plays 2 games against the sample bots without a fault"][1]


def test_a_bad_rule_option_is_one_line_naming_the_key(short_tmp: Path) -> None:
    done = run_referee("check-bot", "--logs", str(short_tmp / "logs"), "--rule", "dog_life=of", "--", "python", str(SAMPLES / "random_bot.py"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--rule dog_life" in done.stderr and "Traceback" not in done.stderr
