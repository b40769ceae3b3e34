"""League configs: ``tournaments/<night>.toml`` -> validated settings (docs/design.md §1, §7).

    config = load_config(Path("tournaments/demo.toml"))   # raises ConfigError, one line
    config.league.table_size, config.rules, config.time, config.faults, config.bots
    rules = rules_from_options(["dog_life=off"])            # referee play --rule KEY=VALUE

A layer of its own, below results, the league and the shell: it imports the pure game
(rules, time control, fault policy), the schedule's formats, the sandbox's settings type,
errors and pydantic. Paths in a config resolve against the current working directory (the
repository root), not against the config file's folder.
"""

from referee.config.load import config_fingerprint, load_config, resolve_command, rules_from_options
from referee.config.settings import BotSpec, LeagueConfig, LeagueSettings, default_bot_dir

__all__ = [
    "BotSpec",
    "LeagueConfig",
    "LeagueSettings",
    "config_fingerprint",
    "default_bot_dir",
    "load_config",
    "rules_from_options",
    "resolve_command",
]
