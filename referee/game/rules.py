"""The rule set of a game: the variants of rules.md §2, defaults first.

Pure data. Validation of user input (config files, ``--rule key=value``) lives in
``referee.config``; this class trusts its arguments except for the checks that depend
on the number of players (:meth:`Rules.check_players`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Literal

from referee.errors import ConfigError

RequiredTricks = Literal["one", "strict"]
DogLife = Literal["round1", "any_round", "off"]
DogPlay = Literal["choose_trick", "first_trick"]
TurnUp = Literal["top", "bottom"]
TrumpTiebreak = Literal["dealer_left", "cut"]
FirstLead = Literal["dealer_left", "trump_chooser"]

MIN_PLAYERS = 2
MAX_PLAYERS = 7


@dataclass(frozen=True)
class Rules:
    """One rule set (rules.md §2). Every field is part of every game record.

    >>> rules = Rules(dog_life="off", start_hand_size=5)
    >>> rules.options()
    ['dog_life=off', 'start_hand_size=5']
    >>> Rules.from_dict(rules.as_dict()) == rules
    True
    """

    required_tricks: RequiredTricks = "one"
    dog_life: DogLife = "round1"
    dog_play: DogPlay = "choose_trick"
    turn_up: TurnUp = "top"
    trump_tiebreak: TrumpTiebreak = "dealer_left"
    allow_no_trump: bool = False
    first_lead: FirstLead = "dealer_left"
    start_hand_size: int = 7

    def check_players(self, players: int) -> None:
        """Raise ConfigError unless ``players`` fits R1 and ``start_hand_size`` (rules.md §2).

        >>> Rules().check_players(7)
        >>> Rules().check_players(8)
        Traceback (most recent call last):
        referee.errors.ConfigError: 8 players: Knockout Whist needs 2-7 (rules.md R1)
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ConfigError(f"{players} players: Knockout Whist needs {MIN_PLAYERS}-{MAX_PLAYERS} (rules.md R1)")
        if not 1 <= self.start_hand_size <= 7:
            raise ConfigError(f"rules.start_hand_size = {self.start_hand_size}: expected 1-7")
        if players * self.start_hand_size > 51:
            raise ConfigError(
                f"rules.start_hand_size = {self.start_hand_size} is too large for {players} players: "
                f"needs players x size <= 51 (at most {51 // players})"
            )

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Rules:
        return cls(**data)  # type: ignore[arg-type]

    def options(self) -> list[str]:
        """The variants that differ from the defaults as ``--rule`` values (``KEY=VALUE``,
        booleans as ``true``/``false``): ``["dog_life=off", "allow_no_trump=true"]``."""
        return [f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in self.differences().items()]

    def summary(self) -> str:
        """The rules line under the standings: only the variants that differ from the
        defaults, ``"dog_life=off, start_hand_size=5 (defaults otherwise)"``, or
        ``"defaults"``. At most 2 changed variants stay within 80 characters.

        >>> Rules().summary()
        'defaults'
        >>> Rules(allow_no_trump=True).summary()
        'allow_no_trump=true (defaults otherwise)'
        """
        changed = self.options()
        if not changed:
            return "defaults"
        return ", ".join(changed) + (" (defaults otherwise)" if len(changed) < len(fields(self)) else "")

    def differences(self) -> dict[str, object]:
        """The variants that differ from the defaults."""
        default = Rules()
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)}
