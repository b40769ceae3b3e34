"""League configs: ``tournaments/<night>.toml`` -> validated settings (docs/design.md §1, §7).

    config = load_config(Path("tournaments/demo.toml"))   # raises ConfigError, one line
    config.league.table_size, config.rules, config.time, config.faults, config.bots
    rules = rules_from_options(["dog_life=off"])            # referee play --rule KEY=VALUE

A leaf of the package: it imports only the pure data modules (rules, timecontrol,
faults, errors) and pydantic. Paths in a config resolve against the current working
directory (the repository root), not against the config file's folder.
"""

from referee.config.load import config_fingerprint, load_config, resolve_command, rules_from_options
from referee.config.settings import BotSpec, LeagueConfig, LeagueSettings, SandboxSection, default_bot_dir

__all__ = [
    "BotSpec",
    "LeagueConfig",
    "LeagueSettings",
    "SandboxSection",
    "config_fingerprint",
    "default_bot_dir",
    "load_config",
    "rules_from_options",
    "resolve_command",
]
