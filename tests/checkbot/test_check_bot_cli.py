"""``referee check-bot`` end to end: real bot processes over real gRPC, through the
command line. Both sample bots pass; each misbehaving bot fails on the right line,
saying what it was asked, what it answered and what would have been legal."""

from __future__ import annotations

import re
from pathlib import Path

from referee.checkbot.situations import build_situations
from referee.game.views import Pass, SeatStatus
from tests.conftest import REPO, processes_matching, run_referee
from tests.transport.helpers import BotLauncher

SAMPLES = REPO / "sample_bots" / "python"
BOTS = Path(__file__).parent / "bots"
FAULT_BOTS = REPO / "tests" / "faults" / "bots"
LINE = re.compile(r"^(PASS|WARN|FAIL|SKIP)  (.+?) — (.*)$")
COVERAGE = build_situations()
CHECKS = len(COVERAGE.situations) + 7  # hello, protocol, the situations, branches, on-time, game-over, games, refused-calls


def title_of(branch: str) -> str:
    """The line of the situation that asks ``branch``."""
    return next(situation.title for situation in COVERAGE.situations if branch in situation.branches)


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
    return {title for title, (status, _) in lines.items() if status not in ("PASS", "WARN")}


def test_both_sample_bots_pass_every_check_on_the_path_they_offer(short_tmp: Path) -> None:
    for script, flags, path in (("heuristic_bot.py", (), "the Play stream"), ("random_bot.py", ("--unary",), "unary Decide")):
        code, lines, out = check(short_tmp, "--", "python", str(SAMPLES / script), *flags)
        assert code == 0, out
        assert not failed(lines), out
        assert lines["speaks protocol 1.x"][1].endswith(f"; answers decisions over {path}"), "it says how the bot was asked"
        assert len(lines) == CHECKS
        assert "plays 20 games against the sample bots without a fault" in lines
        assert f"all {CHECKS} checks passed" in out
        covered = lines["covers the branches of the rules"][1]
        assert covered.startswith(f"{len(COVERAGE.covered)} branches asked in {len(COVERAGE.situations)} situations, found in ")
        assert "lead-after-pass" in covered
    assert not processes_matching(str(short_tmp)), "every bot process (its sandbox names our log folder) is gone"


def test_off_suit_when_it_could_follow_fails_follow_suit(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "offsuit_bot.py"))
    assert code == 1
    follow = title_of("follow-suit")
    status, summary = lines[follow]
    assert status == "FAIL" and re.match(r"illegal: \w\w does not follow suit: you hold [SHDC] \(", summary), summary
    assert lines[title_of("lead")][0] == "PASS" and lines[title_of("void")][0] == "PASS"
    view = next(s.view for s in COVERAGE.situations if "follow-suit" in s.branches)
    block = out.split(f"{follow} —", 1)[1]
    assert f"asked: asked to play a card as seat {view.seat} in round {view.round_number}" in block
    assert f"expected: one of: {' '.join(map(str, view.legal))} — holding the led suit, it must follow suit (rules.md R12)" in block


def test_a_bot_that_never_names_trump_fails_name_trump(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "no_trump_bot.py"))
    assert code == 1
    name_trump = title_of("name-trump")
    status, summary = lines[name_trump]
    assert status == "FAIL" and summary.startswith("malformed: reply sets play but the decision asked was CHOOSE_TRUMP")
    assert "the bot's log: " in summary, "a malformed line names the bot's log"
    block = out.split(f"{name_trump} —", 1)[1]
    assert "asked: asked to name trump as seat" in block and 'answered: {"play":{' in block
    assert "expected: one of: trump S trump H trump D trump C" in block
    assert lines[title_of("follow-suit")][0] == "PASS"


def test_a_dog_passing_on_its_last_trick_fails_only_where_a_dog_may_not_pass(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "dog_pass_last_bot.py"))
    assert code == 1
    last = title_of("dog-last-trick")
    status, summary = lines[last]
    assert status == "FAIL" and summary == "illegal: pass: a dog may not pass on the last trick of the round, rules.md R18"
    assert lines[title_of("dog-follows")][0] == "PASS", "passing before the last trick is legal"
    block = out.split(f"{last} —", 1)[1]
    assert "on the dog's life" in block and "answered: pass" in block
    assert "— a dog may not pass on the last trick of the round (rules.md R18)" in block
    must_play = {
        s.title for s in COVERAGE.situations if s.view.status[s.view.seat] is SeatStatus.DOG and Pass() not in s.view.legal
    }
    assert {last, title_of("dog-last-round"), title_of("dog-first-trick")} <= must_play
    assert failed(lines) == must_play | {"plays 2 games against the sample bots without a fault"} or failed(lines) == must_play


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
    first, second = COVERAGE.situations[0].title, COVERAGE.situations[1].title
    assert lines[first][0] == "FAIL" and lines[first][1].startswith("timeout")
    status, summary = lines[second]
    assert status == "FAIL" and f"most likely the bot was still at work on an earlier request ('{first}'" in summary
    assert "DEADLINE_EXCEEDED" not in out, "the gRPC status stays in the bot's log"


def test_a_bot_that_crashes_only_as_a_leading_dog_fails_there_and_is_started_again(short_tmp: Path) -> None:
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", str(BOTS / "dog_lead_crash_bot.py"))
    assert code == 1, out
    status, summary = lines[title_of("dog-leads")]
    assert status == "FAIL" and summary.startswith("crash: the connection to the bot was lost") and "exited with code 5" in summary
    log = Path(summary.split("the bot's log: ", 1)[1].split()[0])
    assert log.is_file() and log.parent == short_tmp / "logs", "a crash line names the bot's log"
    for branch in ("dog-follows", "dog-last-trick", "dog-after-pass"):
        assert lines[title_of(branch)][0] == "PASS", f"{branch}: asked of the bot started again"
    assert "UNAVAILABLE" not in out


def test_the_issues_bot_reading_the_led_suit_from_the_first_play_fails_where_a_dog_passed_the_lead(short_tmp: Path) -> None:
    """A dog leads and passes, a normal player plays next: the trick's first play holds no card."""
    code, lines, out = check(short_tmp, "--games", "1", "--", "python", str(BOTS / "naive_led_suit_bot.py"))
    assert code == 1, out
    status, summary = lines[title_of("lead-after-pass")]
    assert status == "FAIL" and summary.startswith("crash: ") and "exited with code 1" in summary, summary
    assert lines[title_of("lead")][0] == "PASS" and lines[title_of("follow-suit")][0] == "PASS"
    assert lines[title_of("after-dog-card")][0] == "PASS", "a dog's card led is read fine"


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


def test_rule_options_pin_the_rules_of_the_games_and_of_the_situations(short_tmp: Path) -> None:
    bot = str(BOTS / "short_game_bot.py")
    code, lines, out = check(short_tmp, "--games", "2", "--", "python", bot)
    assert code == 1, out
    short = {situation.title for situation in COVERAGE.situations if situation.view.rules.start_hand_size < 7}
    assert {title_of("short-game"), title_of("one-round-game")} <= short
    assert failed(lines) == short, "its bug is met under the variants too"
    code, lines, out = check(short_tmp, "--games", "2", "--rule", "start_hand_size=7", "--", "python", bot)
    assert code == 0, out
    assert "not possible under the rules given: " in lines["covers the branches of the rules"][1]
    assert "one-round-game" in lines["covers the branches of the rules"][1].split("not possible under the rules given: ")[1]
    code, lines, out = check(short_tmp, "--games", "2", "--rule", "start_hand_size=3", "--", "python", bot)
    assert code == 1, out
    assert "malformed" in lines["plays 2 games against the sample bots without a fault"][1]


def test_a_bad_rule_option_is_one_line_naming_the_key(short_tmp: Path) -> None:
    done = run_referee("check-bot", "--logs", str(short_tmp / "logs"), "--rule", "dog_life=of", "--", "python", str(SAMPLES / "random_bot.py"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--rule dog_life" in done.stderr and "Traceback" not in done.stderr
