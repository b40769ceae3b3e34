"""The one exception hierarchy of the referee.

Every error a user can cause (a bad config, a bad deal file, a bot that cannot be
started) is a :class:`RefereeError`; the command line turns it into one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error the referee raises on purpose."""

    exit_code = 2


class ConfigError(RefereeError):
    """A league config, rule option or deal file is invalid.

    The message names the file, the key (or card) and what is expected.
    """


class IllegalAction(RefereeError):
    """The rules engine rejected an action (rules.md R15); the game state is unchanged."""


class BotError(RefereeError):
    """A bot could not be started, reached or spoken to (used outside a game's fault policy)."""


class SandboxError(RefereeError):
    """The requested sandbox mode cannot run on this host."""


class HostError(SandboxError):
    """This host cannot run a bot the way the league asks (its runtime out of the sandbox's
    reach, no sandbox uid free, its log not writable): never the bot's fault, so never a
    fault of the bot (docs/design.md §5). The message names the bot and the fix."""


class StoreError(RefereeError):
    """The results store is missing, unreadable, or belongs to another config."""


class MatchStopped(RefereeError):
    """A game in progress was abandoned because the league was interrupted (Ctrl-C); it is
    not stored, and the next run plays it again (docs/design.md §7)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM, after the command has already said what was kept: the command
    line exits 130 without printing ``interrupted`` again."""
