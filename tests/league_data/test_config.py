"""League config loading: valid files build settings; every bad file is one line naming file and key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from referee.config import load_config, rules_from_options
from referee.config.schema import RulesModel
from referee.errors import ConfigError
from referee.rules import Rules

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
    with pytest.raises(ConfigError, match=r"bots\[0\]\.dir: folder .* not found \(paths are taken from "):
        load_config(tmp_path / "night.toml")  # run from the wrong folder: said at once, not 24 startup faults


def test_strict_preset_forfeits_on_first_fault(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD + '\n[faults]\npreset = "strict"\n'))
    assert config.faults.max_faults == 1 and config.faults.forfeit_after == 1


def test_sandbox_section_has_the_sandbox_settings_fields() -> None:
    settings = pytest.importorskip("referee.sandbox.settings")
    from referee.config import SandboxSection

    ours = {field.name for field in dataclasses.fields(SandboxSection)}
    theirs = {field.name for field in dataclasses.fields(settings.SandboxSettings)}
    assert ours <= theirs
    section = SandboxSection(memory_mb=256, ro_paths=("/opt",))
    built = settings.SandboxSettings(**dataclasses.asdict(section))
    assert built.memory_mb == 256 and built.ro_paths == ("/opt",)


def test_rules_model_matches_rules_dataclass() -> None:
    assert list(RulesModel.model_fields) == [field.name for field in dataclasses.fields(Rules)]
    assert Rules(**RulesModel().model_dump()) == Rules()


# (description, text of the config, the key path the one-line message must name, a phrase it must hold)
BAD: list[tuple[str, str, str, str]] = [
    ("unknown key", GOOD.replace("table_size = 3", "tabel_size = 3"), "unknown key 'league.tabel_size'", "did you mean 'table_size'"),
    ("unknown section", GOOD + "\n[clock]\nmove_ms = 5\n", "unknown key 'clock'", "known keys: league, rules, time"),
    ("wrong type", GOOD.replace("table_size = 3", 'table_size = "3"'), "league.table_size:", 'expected an integer 2-7, got "3"'),
    ("bool is no int", GOOD.replace("seed = 7", "seed = true"), "league.seed:", "got true"),
    ("table size 1", GOOD.replace("table_size = 3", "table_size = 1"), "league.table_size:", "expected an integer 2-7, got 1"),
    ("table size 8", GOOD.replace("table_size = 3", "table_size = 8"), "league.table_size:", "expected an integer 2-7, got 8"),
    ("table size > bots", GOOD.replace("table_size = 3", "table_size = 4"), "league.table_size:", "at most the number of bots (3)"),
    ("missing command", GOOD.replace('command = ["python", "bots/alpha/bot.py"]', ""), "bots[0].command:", "a bot needs 'command' or 'address'"),
    ("command and address", GOOD.replace('address = "127.0.0.1:50051"', 'address = "127.0.0.1:50051"\ncommand = "x"'), "bots[2].address:", "not both"),
    ("duplicate name", GOOD.replace('name = "gamma"', 'name = "alpha"'), "bots[2].name:", "duplicate bot name 'alpha'"),
    ("bad name", GOOD.replace('name = "beta"', 'name = "be ta"'), "bots[1].name:", "expected a name"),
    ("bad address", GOOD.replace("127.0.0.1:50051", "localhost"), "bots[2].address:", "host:port"),
    ("empty command", GOOD.replace('command = "python bots/beta/bot.py --fast"', "command = []"), "bots[1].command:", "expected a list of strings such as"),
    ("command item", GOOD.replace('"bots/alpha/bot.py"]', "3]"), "bots[0].command[1]:", "expected a valid string, got 3"),
    ("bot not a table", "bots = [1, 2]\n[league]\ntable_size = 2\n", "bots[0]:", "expected a table, got 1"),
    ("no league", GOOD.replace("[league]\nseed = 7\ntable_size = 3\n", ""), "league:", "missing"),
    ("league not a table", GOOD.replace("[league]\nseed = 7\ntable_size = 3\n", "league = 5\n"), "league:", "expected a [league] table, got 5"),
    ("one bot", GOOD.split("[[bots]]")[0] + "[[bots]]" + GOOD.split("[[bots]]")[1], "bots:", "at least 2 [[bots]] tables, got 1"),
    ("bad rules value", GOOD + '\n[rules]\ndog_life = "sometimes"\n', "rules.dog_life:", "'round1', 'any_round' or 'off'"),
    ("bad rules bool", GOOD + '\n[rules]\nallow_no_trump = "yes"\n', "rules.allow_no_trump:", "true or false"),
    ("start hand too big", GOOD + "\n[rules]\nstart_hand_size = 8\n", "rules.start_hand_size:", "1-7, got 8"),
    ("move_ms zero", GOOD + "\n[time]\nmove_ms = 0\n", "time.move_ms:", "an integer >= 1, got 0"),
    ("negative grace", GOOD + "\n[time]\ngrace_ms = -1\n", "time.grace_ms:", "got -1"),
    ("bad preset", GOOD + '\n[faults]\npreset = "lenient"\n', "faults.preset:", "'league', 'strict' or 'debug'"),
    ("strict with max_faults", GOOD + '\n[faults]\npreset = "strict"\nmax_faults = 3\n', "faults.max_faults:", "strict"),
    ("bad sandbox mode", GOOD + '\n[sandbox]\nmode = "docker"\n', "sandbox.mode:", "'bwrap'"),
    ("cpus zero", GOOD + "\n[sandbox]\ncpus = 0\n", "sandbox.cpus:", "got 0"),
    ("bad format", GOOD.replace("seed = 7", 'seed = 7\nformat = "swiss"'), "league.format:", "'round_robin', 'gauntlet' or 'movement'"),
    ("challengers in round robin", GOOD.replace("seed = 7", 'seed = 7\nchallengers = ["alpha"]'), "league.challengers:", "gauntlet"),
    ("gauntlet without challengers", GOOD.replace("seed = 7", 'seed = 7\nformat = "gauntlet"'), "league.challengers:", "at least one"),
    ("unknown challenger", GOOD.replace("seed = 7", 'seed = 7\nformat = "gauntlet"\nchallengers = ["zeta"]'), "league.challengers[0]:", "no bot is named 'zeta'"),
    ("gauntlet field too small", GOOD.replace("seed = 7", 'seed = 7\nformat = "gauntlet"\nchallengers = ["alpha", "beta"]'), "league.table_size:", "besides the challengers"),
    ("movement without a budget", GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"'), "league.games:", "needs a budget: games = N or minutes = M"),
    ("budget in round robin", GOOD.replace("seed = 7", "seed = 7\nminutes = 50"), "league.minutes:", 'is for format = "movement"'),
    ("zero minutes", GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"\nminutes = 0'), "league.minutes:", "above 0"),
    ("unknown stop", GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"\ngames = 9\nstop = "soon"'), "league.stop:", "budget"),
    ("TOML syntax error", GOOD.replace("seed = 7", "seed = = 7"), "line 3, column 8", "TOML syntax error: Invalid value: seed = = 7"),
    ("TOML unclosed at end", GOOD + "\nextra = [1, 2", "line 18, column 14", "TOML syntax error: Unclosed array: extra = [1, 2"),
]


@pytest.mark.parametrize(("text", "key", "phrase"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_config_is_one_line_naming_file_and_key(tmp_path: Path, text: str, key: str, phrase: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert key in message
    assert phrase in message
    assert raised.value.exit_code == 2


def test_movement_with_a_budget_and_sequential_stop(tmp_path: Path) -> None:
    text = GOOD.replace("seed = 7", 'seed = 7\nformat = "movement"\nminutes = 50\nstop = "separated"\nconfidence = 0.9\nseparate = 3')
    league = load_config(write(tmp_path, text)).league
    assert (league.format, league.minutes, league.games, league.stop, league.confidence, league.separate) == ("movement", 50.0, None, "separated", 0.9, 3)


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
