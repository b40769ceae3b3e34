"""League config loading: valid files build settings; every bad file is one line naming file and key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from referee.config import load_config, rules_from_options
from referee.config.schema import RulesModel
from referee.errors import ConfigError
from referee.game.rules import Rules

BOTS = """
[[bots]]
name = "alpha"
command = ["python", "bots/alpha/bot.py"]

[[bots]]
name = "beta"
command = "python bots/beta/bot.py --fast"

[[bots]]
name = "gamma"
address = "127.0.0.1:50051"
"""

GOOD = (
    """
[league]
seed = 7
table_size = 3
"""
    + BOTS
)


@pytest.fixture(autouse=True)
def bots_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in a folder holding the bots that BOTS names: a config's files must exist."""
    for name in ("alpha", "beta"):
        (tmp_path / "bots" / name).mkdir(parents=True)
        (tmp_path / "bots" / name / "bot.py").write_text("")
    monkeypatch.chdir(tmp_path)


def write(tmp_path: Path, text: str, name: str = "night.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_minimal_config_gets_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.league.name == "night"
    assert config.league.results == Path("results/night.sqlite")
    assert (config.league.seed, config.league.table_size, config.league.deals) == (7, 3, 1)
    assert config.league.format == "round_robin" and config.league.challengers == ()
    assert config.rules == Rules()
    assert config.time.move_ms == 1000 and config.time.grace_ms == 100 and not config.time.unlimited
    assert config.faults.preset == "league" and config.faults.max_faults == 3
    assert config.sandbox.mode == "auto" and config.sandbox.memory_mb == 512
    assert config.bot_names == ["alpha", "beta", "gamma"]
    assert config.bots[0].command == ("python", str(tmp_path / "bots" / "alpha" / "bot.py"))  # made absolute
    assert config.bots[0].dir == Path("bots/alpha").absolute()
    assert config.bots[1].command == ("python", str(tmp_path / "bots" / "beta" / "bot.py"), "--fast")
    assert config.bots[1].dir == Path("bots/beta").absolute()
    assert config.bots[2].remote and config.bots[2].command == ()
    assert config.remote_bots == {"gamma"}
    assert config.source == tmp_path / "night.toml"
    assert config.text.startswith("\n[league]")


def test_demo_config_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    demo = Path(__file__).resolve().parents[2] / "tournaments" / "demo.toml"
    monkeypatch.chdir(demo.parents[1])
    config = load_config(demo)
    assert config.league.name == "demo" and config.league.seed == 2026 and config.league.table_size == 4
    assert config.bot_names == ["heuristic", "heuristic-2", "random", "random-2"]
    samples = demo.parents[1] / "sample_bots" / "python"
    assert all(bot.dir == Path("sample_bots/python").absolute() for bot in config.bots)
    assert config.bots[3].command in (("python", "sample_bots/python/random_bot.py"), ("python", str(samples / "random_bot.py")))
    assert config.time.move_ms == 1000 and config.time.startup_ms == 10000


def test_every_section_is_read(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    text = """
[league]
name = "friday"
seed = 1
table_size = 2
deals = 3
concurrency = 2
results = "out/friday.sqlite"
format = "gauntlet"
challengers = ["alpha"]
[rules]
dog_life = "off"
allow_no_trump = true
start_hand_size = 5
[time]
move_ms = 250
bank_ms = 500
[faults]
preset = "debug"
max_restarts = 0
[sandbox]
mode = "rlimits"
cpus = 2
ro_paths = ["/usr/share"]
""" + BOTS.replace('"bots/alpha/bot.py"]', '"bots/alpha/bot.py"]\ndir = "elsewhere"\nro_paths = ["/usr"]')
    config = load_config(write(tmp_path, text))
    assert config.league.results == Path("out/friday.sqlite")
    assert config.league.challengers == ("alpha",)
    assert config.rules == Rules(dog_life="off", allow_no_trump=True, start_hand_size=5)
    assert config.time.move_ms == 250 and config.time.bank_ms == 500 and config.time.unlimited
    assert config.faults.preset == "debug" and config.faults.max_restarts == 0
    assert config.sandbox.cpus == 2.0 and config.sandbox.ro_paths == ("/usr/share",)
    assert config.bots[0].dir == Path("elsewhere").absolute() and config.bots[0].ro_paths == ("/usr",)


def test_command_paths_resolve_from_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config(write(tmp_path, GOOD.replace("command = \"python bots/beta/bot.py --fast\"", 'command = "python bot.py -m x"\ndir = "bots/beta"')))
    alpha, beta, gamma = config.bots
    assert alpha.command == ("python", str(tmp_path / "bots" / "alpha" / "bot.py")) and alpha.dir == tmp_path / "bots" / "alpha"
    assert beta.command == ("python", "bot.py", "-m", "x") and beta.dir == tmp_path / "bots" / "beta"
    assert gamma.dir == Path(".") and gamma.command == ()
    monkeypatch.chdir(tmp_path / "bots")
    with pytest.raises(ConfigError, match=r"bot \"alpha\": command: file 'bots/alpha/bot.py' not found \(paths are taken from "):
        load_config(tmp_path / "night.toml")  # run from the wrong folder: said at once, not 24 startup faults


def test_strict_preset_forfeits_on_first_fault(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD + '\n[faults]\npreset = "strict"\n'))
    assert config.faults.max_faults == 1 and config.faults.forfeit_after == 1


def test_sandbox_model_matches_sandbox_settings() -> None:
    from referee.config.schema import SandboxModel
    from referee.sandbox.settings import SandboxSettings

    assert list(SandboxModel.model_fields) == [field.name for field in dataclasses.fields(SandboxSettings)]
    defaults = SandboxModel().model_dump()
    assert SandboxSettings(**{**defaults, "ro_paths": tuple(defaults["ro_paths"])}) == SandboxSettings()


def test_rules_model_matches_rules_dataclass() -> None:
    assert list(RulesModel.model_fields) == [field.name for field in dataclasses.fields(Rules)]
    assert Rules(**RulesModel().model_dump()) == Rules()


NAME_RULE = "a name of letters, digits, '-', '_', '.' (at most 40, starting with a letter or digit)"

# (description, text of the config, the exact line after "<file>: "; {cwd} is the folder the referee runs in)
BAD: list[tuple[str, str, str]] = [
    ("unknown key", GOOD.replace("table_size = 3", "tabel_size = 3"), "unknown key 'league.tabel_size' (did you mean 'table_size'?)"),
    ("unknown section", GOOD + "\n[clock]\nmove_ms = 5\n",
     "unknown section [clock] (known sections: [league], [rules], [time], [faults], [sandbox], [cluster], [[bots]])"),
    ("misspelt [league]", GOOD.replace("[league]", "[leauge]"), "unknown section [leauge] (did you mean [league]?)"),
    ("misspelt [[bots]]", GOOD.replace("[[bots]]", "[[bot]]"), "unknown section [[bot]] (did you mean [[bots]]?)"),
    ("misspelt [rules]", GOOD + '\n[rule]\ndog_life = "off"\n', "unknown section [rule] (did you mean [rules]?)"),
    ("wrong type", GOOD.replace("table_size = 3", 'table_size = "3"'), 'league.table_size: expected an integer 2-7, got "3"'),
    ("bool is no int", GOOD.replace("seed = 7", "seed = true"), "league.seed: expected an integer, got true"),
    ("table size 1", GOOD.replace("table_size = 3", "table_size = 1"), "league.table_size: expected an integer 2-7, got 1"),
    ("table size 8", GOOD.replace("table_size = 3", "table_size = 8"), "league.table_size: expected an integer 2-7, got 8"),
    ("table size > bots", GOOD.replace("table_size = 3", "table_size = 4"),
     "league.table_size: expected at most the number of bots (3), got 4"),
    ("missing command", GOOD.replace('command = ["python", "bots/alpha/bot.py"]', ""),
     "bot \"alpha\": command: a bot needs 'command' or 'address'"),
    ("command and address", GOOD.replace('address = "127.0.0.1:50051"', 'address = "127.0.0.1:50051"\ncommand = "x"'),
     "bot \"gamma\": address: a bot has 'command' or 'address', not both"),
    ("duplicate name", GOOD.replace('name = "gamma"', 'name = "alpha"'),
     'two [[bots]] tables are named "alpha" (the 1st and the 3rd): give each bot its own name'),
    ("bad name", GOOD.replace('name = "beta"', 'name = "be ta"'), f'bot "be ta": name: expected {NAME_RULE}, got "be ta"'),
    ("markup in a name", GOOD.replace('name = "beta"', 'name = "[red]x"'), f'bot "[red]x": name: expected {NAME_RULE}, got "[red]x"'),
    ("no name", GOOD.replace('name = "beta"\n', ""),
     f'the 2nd [[bots]] table (command "python bots/beta/bot.py --fast"): name: missing, expected {NAME_RULE}'),
    ("misspelt name key", GOOD.replace('name = "beta"', 'nmae = "beta"'),
     "the 2nd [[bots]] table (command \"python bots/beta/bot.py --fast\"): unknown key 'nmae' (did you mean 'name'?)"),
    ("unknown bot key", GOOD.replace('name = "beta"', 'name = "beta"\ncwd = "x"'),
     "bot \"beta\": unknown key 'cwd' (known keys: name, command, address, dir, ro_paths, human, move_ms)"),
    ("bad league name", GOOD.replace("seed = 7", 'seed = 7\nname = "friday night"'),
     f'league.name: expected {NAME_RULE}, got "friday night"'),
    ("bad address", GOOD.replace("127.0.0.1:50051", "localhost"),
     "bot \"gamma\": address: expected an address 'host:port' or 'unix:/path', got \"localhost\""),
    ("empty command", GOOD.replace('command = "python bots/beta/bot.py --fast"', "command = []"),
     'bot "beta": command: expected a list of strings such as ["python", "bot.py"], or one string, got []'),
    ("command item", GOOD.replace('"bots/alpha/bot.py"]', "3]"), 'bot "alpha": command[1]: expected a valid string, got 3'),
    ("bot not a table", "bots = [1, 2]\n[league]\ntable_size = 2\n", "bots[0]: expected a table, got 1"),
    ("no league", GOOD.replace("[league]\nseed = 7\ntable_size = 3\n", ""), "league: missing, expected a [league] table"),
    ("league not a table", GOOD.replace("[league]\nseed = 7\ntable_size = 3\n", "league = 5\n"), "league: expected a [league] table, got 5"),
    ("one bot", GOOD.split("[[bots]]")[0] + "[[bots]]" + GOOD.split("[[bots]]")[1], "bots: expected at least 2 [[bots]] tables, got 1"),
    ("bad rules value", GOOD + '\n[rules]\ndog_life = "sometimes"\n',
     "rules.dog_life: expected 'round1', 'any_round' or 'off', got \"sometimes\""),
    ("bad rules bool", GOOD + '\n[rules]\nallow_no_trump = "yes"\n', 'rules.allow_no_trump: expected true or false, got "yes"'),
    ("start hand too big", GOOD + "\n[rules]\nstart_hand_size = 8\n", "rules.start_hand_size: expected an integer 1-7, got 8"),
    ("move_ms zero", GOOD + "\n[time]\nmove_ms = 0\n", "time.move_ms: expected an integer >= 1, got 0"),
    ("negative grace", GOOD + "\n[time]\ngrace_ms = -1\n", "time.grace_ms: expected an integer >= 0, got -1"),
    ("bad preset", GOOD + '\n[faults]\npreset = "lenient"\n', "faults.preset: expected 'league', 'strict' or 'debug', got \"lenient\""),
    ("max_faults unbounded", GOOD + "\n[faults]\nmax_faults = 1000\n", "faults.max_faults: expected an integer 1-10, got 1000"),
    ("strict with max_faults", GOOD + '\n[faults]\npreset = "strict"\nmax_faults = 3\n',
     "faults.max_faults: the 'strict' preset forfeits on the first fault: remove max_faults or use preset 'league'"),
    ("bad sandbox mode", GOOD + '\n[sandbox]\nmode = "docker"\n',
     "sandbox.mode: expected 'auto', 'bwrap', 'rlimits' or 'none', got \"docker\""),
    ("cpus zero", GOOD + "\n[sandbox]\ncpus = 0\n", "sandbox.cpus: expected a number of CPUs above 0, e.g. 1.0, got 0"),
    ("bad format", GOOD.replace("seed = 7", 'seed = 7\nformat = "swiss"'), "league.format: expected 'round_robin', 'gauntlet' or 'movement', got \"swiss\""),
    ("challengers in round robin", GOOD.replace("seed = 7", 'seed = 7\nchallengers = ["alpha"]'),
     'league.challengers: challengers are for format = "gauntlet" only'),
    ("gauntlet without challengers", GOOD.replace("seed = 7", 'seed = 7\nformat = "gauntlet"'),
     "league.challengers: a gauntlet needs at least one challenger (a bot name)"),
    ("unknown challenger", GOOD.replace("seed = 7", 'seed = 7\nformat = "gauntlet"\nchallengers = ["zeta"]'),
     "league.challengers[0]: no bot is named 'zeta' (known: alpha, beta, gamma)"),
    ("gauntlet field too small", GOOD.replace("seed = 7", 'seed = 7\nformat = "gauntlet"\nchallengers = ["alpha", "beta"]'),
     "league.table_size: a gauntlet at tables of 3 needs at least 2 bots besides the challengers, got 1"),
    ("TOML syntax error", GOOD.replace("seed = 7", "seed = = 7"), "line 3, column 8: TOML syntax error: Invalid value: seed = = 7"),
    ("TOML unclosed at end", GOOD + "\nextra = [1, 2", "line 18, column 14: TOML syntax error: Unclosed array: extra = [1, 2"),
    # files and commands: checked at load, not found out as startup faults during the league
    ("wrong dir", GOOD.replace('"bots/alpha/bot.py"]', '"bot.py"]\ndir = "bots/alfa"'),
     "bot \"alpha\": dir: folder '{cwd}/bots/alfa' not found (paths are taken from {cwd})"),
    ("folder from the command", GOOD.replace("bots/alpha/bot.py", "bots/alfa/bot.py"),
     "bot \"alpha\": command: file 'bots/alfa/bot.py' not found (paths are taken from {cwd})"),
    ("bot ro_paths", GOOD.replace('name = "beta"', 'name = "beta"\nro_paths = ["/no/such/path"]'),
     "bot \"beta\": ro_paths: '/no/such/path' not found (paths are taken from {cwd})"),
    ("script with no interpreter", GOOD.replace('["python", "bots/alpha/bot.py"]', '["bots/alpha/bot.py", "--fast"]'),
     "bot \"alpha\": command: 'bots/alpha/bot.py' is a script, not a program: start it with its interpreter, "
     'e.g. command = ["python", "bots/alpha/bot.py", "--fast"]'),
    ("bare script with no interpreter", GOOD.replace('["python", "bots/alpha/bot.py"]', '["bot.py"]\ndir = "bots/alpha"'),
     "bot \"alpha\": command: 'bot.py' is a script, not a program: start it with its interpreter, "
     'e.g. command = ["python", "bot.py"]'),
    ("folder as the script", GOOD.replace('"bots/alpha/bot.py"]', '"bots/alpha"]'),
     "bot \"alpha\": command: 'bots/alpha' is a folder, not a script: e.g. command = [\"python\", \"bots/alpha/bot.py\"]"),
    ("folder as the program", GOOD.replace('["python", "bots/alpha/bot.py"]', '["bots/alpha/"]'),
     "bot \"alpha\": command: 'bots/alpha/' is a folder, not a program: e.g. command = [\"python\", \"bots/alpha/bot.py\"]"),
    ("bare folder as the program", GOOD.replace('["python", "bots/alpha/bot.py"]', '["bots"]'),
     "bot \"alpha\": command: 'bots' is a folder, not a program: e.g. command = [\"python\", \"bots/bot.py\"]"),
    ("interpreter not on PATH", GOOD.replace('["python", "bots/alpha/bot.py"]', '["python3.99", "bots/alpha/bot.py"]'),
     "bot \"alpha\": command: interpreter 'python3.99' is not on PATH: write \"python\" for the referee's own Python, "
     'e.g. command = ["python", "bots/alpha/bot.py"]'),
    ("interpreter path missing", GOOD.replace('["python", "bots/alpha/bot.py"]', '["venv/bin/python", "bots/alpha/bot.py"]'),
     "bot \"alpha\": command: interpreter 'venv/bin/python' not found (paths are taken from {cwd}): write \"python\" for the "
     'referee\'s own Python, e.g. command = ["python", "bots/alpha/bot.py"]'),
    ("python with no script", GOOD.replace('["python", "bots/alpha/bot.py"]', '["python"]\ndir = "bots/alpha"'),
     "bot \"alpha\": command: 'python' with no script: e.g. command = [\"python\", \"bot.py\"]"),
    ("program not on PATH", GOOD.replace('["python", "bots/alpha/bot.py"]', '["no-such-program-x"]'),
     "bot \"alpha\": command: program 'no-such-program-x' is not on PATH; give its path"),
    ("program not executable", GOOD.replace('["python", "bots/alpha/bot.py"]', '["bots/alpha/run"]'),
     "bot \"alpha\": command: 'bots/alpha/run' is not executable: run  chmod +x bots/alpha/run  or start it with its interpreter"),
]


@pytest.mark.parametrize(("text", "line"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_config_is_one_exact_line_naming_file_and_key(tmp_path: Path, text: str, line: str) -> None:
    (tmp_path / "bots" / "alpha" / "run").write_text("#!/bin/sh\n")
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}: " + line.replace("{cwd}", str(tmp_path))
    assert raised.value.exit_code == 2


@pytest.mark.parametrize("name", ["josé", "Łukasz_2", "ñandú-bot", "名前", "Ωmega.v2"])
def test_names_may_hold_any_letter(tmp_path: Path, name: str) -> None:
    text = GOOD.replace('name = "beta"', f'name = "{name}"').replace("seed = 7", f'seed = 7\nname = "{name}"')
    config = load_config(write(tmp_path, text))
    assert config.bot_names[1] == name and config.league.name == name


def test_a_script_with_a_shebang_runs_as_a_program(tmp_path: Path) -> None:
    script = tmp_path / "bots" / "alpha" / "bot.py"
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o755)
    config = load_config(write(tmp_path, GOOD.replace('["python", "bots/alpha/bot.py"]', '["bots/alpha/bot.py"]')))
    assert config.bots[0].command == (str(script),)


def test_a_python_package_folder_is_a_script(tmp_path: Path) -> None:
    (tmp_path / "bots" / "alpha" / "__main__.py").write_text("")
    config = load_config(write(tmp_path, GOOD.replace('"bots/alpha/bot.py"]', '"bots/alpha"]')))
    assert config.bots[0].command[0] == "python"


# movement (class-size) budget keys: (description, text, the key path named, a phrase the line holds)
BAD_MOVEMENT: list[tuple[str, str, str, str]] = [
    ("movement without a budget", GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"'), "league.games:", "needs a budget: games = N or minutes = M"),
    ("budget in round robin", GOOD.replace("seed = 7", "seed = 7\nminutes = 50"), "league.minutes:", 'is for format = "movement"'),
    ("zero minutes", GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"\nminutes = 0'), "league.minutes:", "above 0"),
    ("unknown stop", GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"\ngames = 9\nstop = "soon"'), "league.stop:", "budget"),
]


@pytest.mark.parametrize(("text", "key", "phrase"), [case[1:] for case in BAD_MOVEMENT], ids=[case[0] for case in BAD_MOVEMENT])
def test_bad_movement_keys_are_one_line_naming_the_key(tmp_path: Path, text: str, key: str, phrase: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert key in message and phrase in message


def test_movement_with_a_budget_and_sequential_stop(tmp_path: Path) -> None:
    text = GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"\nminutes = 50\nstop = "separated"\nconfidence = 0.9\nseparate = 3\nmargin = 0.2')
    league = load_config(write(tmp_path, text)).league
    assert (league.format, league.minutes, league.games, league.stop, league.confidence, league.separate, league.margin) == (
        "movement", 50.0, None, "separated", 0.9, 3, 0.2)


@pytest.mark.parametrize("margin", ["0", "-0.1", "1.5", '"big"'])
def test_a_margin_outside_0_to_1_points_per_game_is_refused(tmp_path: Path, margin: str) -> None:
    path = write(tmp_path, GOOD.replace("seed = 7", f'seed = 7\nformat = "movement"\nstop = "separated"\nmargin = {margin}'))
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert "margin" in str(raised.value) and "points per game" in str(raised.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: no such config file"):
        load_config(tmp_path / "nope.toml")


def test_fingerprint_ignores_comments_concurrency_and_results_but_not_rules(tmp_path: Path) -> None:
    base = load_config(write(tmp_path, GOOD))
    commented = load_config(write(tmp_path, "# a comment\n" + GOOD.replace("seed = 7", "seed = 7   # lucky")))
    faster = load_config(write(tmp_path, GOOD.replace("seed = 7", 'seed = 7\nconcurrency = 1\nresults = "x.sqlite"')))
    other_rules = load_config(write(tmp_path, GOOD + '\n[rules]\ndog_life = "off"\n'))
    other_seed = load_config(write(tmp_path, GOOD.replace("seed = 7", "seed = 8")))
    assert base.fingerprint == commented.fingerprint == faster.fingerprint
    assert len({base.fingerprint, other_rules.fingerprint, other_seed.fingerprint}) == 3
    assert len(base.fingerprint) == 64


def test_rules_from_options() -> None:
    assert rules_from_options([]) == Rules()
    assert rules_from_options(["dog_life=off", "start_hand_size=5", "allow_no_trump=true"]) == Rules(
        dog_life="off", start_hand_size=5, allow_no_trump=True
    )
    assert rules_from_options(['turn_up="bottom"']) == Rules(turn_up="bottom")


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        (["dog_life=of"], "--rule dog_life: expected 'round1', 'any_round' or 'off', got \"of\""),
        (["dog_lif=off"], "unknown key 'dog_lif' (did you mean 'dog_life'?)"),
        (["start_hand_size=9"], "--rule start_hand_size: expected an integer 1-7, got 9"),
        (["allow_no_trump=maybe"], "--rule allow_no_trump: expected true or false"),
        (["dog_life"], "expected KEY=VALUE"),
    ],
)
def test_rules_from_options_errors(options: list[str], phrase: str) -> None:
    with pytest.raises(ConfigError) as raised:
        rules_from_options(options)
    assert phrase in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_bad_command_stops_referee_run_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli.main import main

    path = write(tmp_path, GOOD.replace('["python", "bots/alpha/bot.py"]', '["bots/alpha"]'))
    code = main(["run", str(path), "--no-live", "--results", str(tmp_path / "r.sqlite")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "bot \"alpha\": command: 'bots/alpha' is a folder, not a program" in err
    assert not (tmp_path / "r.sqlite").exists()
