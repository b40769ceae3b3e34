"""Deal files: fix the first dealer and the deck order of chosen rounds (issue 3 §4).

    deal = read_deal(Path("hand.toml"))          # ConfigError, one line naming the file and key/card
    deal.check_seats(4)                          # first_dealer fits the table
    Game(4, rules, deal.seed or seed, first_dealer=deal.first_dealer, decks=deal.decks)
    text = format_deal(deal_from_record(record)) # ``referee replay RESULTS GAME --export-deal FILE``

The format (TOML; a file ending in ``.json`` may hold the same keys as JSON)::

    first_dealer = 2     # optional: the seat (0-based) that deals round 1; else drawn from the seed
    seed = 1234          # optional: the game seed (rounds not listed, cut draws); else --seed
    [rules]              # optional: the rules the deal is played under (docs/rules.md §2), as in a config
    dog_life = "off"     # keys not listed keep their defaults
    [rounds]             # round number = its 52 cards in deal order, deck position 0 first
    1 = "AS KH 7C ..."   # card names: rank 2-9 T J Q K A then suit S H D C; spaces or commas between
    3 = ["QD", "2C", ...]  # an array of names works too

A listed round must list all 52 cards once each; a round not listed is shuffled from
the seed. Deck position ``i`` goes to the i-th recipient clockwise from the left of the
dealer, a dog only on the first pass (rules.md R6); the round-1 turn-up is the card
after the last one dealt, or position 51 with ``turn_up = "bottom"`` (rules.md R7).

Everything here is pure except :func:`read_deal`, which reads the file.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from referee.config.load import rules_from_options
from referee.config.messages import describe, describe_toml
from referee.config.schema import RulesModel, Section
from referee.errors import ConfigError
from referee.game.cards import CARDS, Card, parse_card
from referee.game.records import GameRecord
from referee.game.rules import Rules

KEYS = ("first_dealer", "seed", "rules", "rounds")
_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class Deal:
    """A parsed deal file. ``decks`` maps round number (1-based) to its 52 cards in deal
    order; ``first_dealer`` / ``seed`` are None when the file leaves them to the game;
    ``rules`` is the rule set the deal was played under, None when the file has no
    ``[rules]`` table (then ``--rule`` options decide); ``source`` names the file in error
    messages; ``comment`` is written above the keys."""

    first_dealer: int | None = None
    seed: int | None = None
    decks: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    rules: Rules | None = None
    source: str = "deal file"
    comment: tuple[str, ...] = ()

    def check_seats(self, num_seats: int) -> None:
        """Raise ConfigError unless ``first_dealer`` is a seat of a ``num_seats`` table."""
        if self.first_dealer is not None and not 0 <= self.first_dealer < num_seats:
            raise ConfigError(
                f"{self.source}: first_dealer = {self.first_dealer}: expected a seat 0-{num_seats - 1} "
                f"for {num_seats} players"
            )


def read_deal(path: Path) -> Deal:
    """Read and parse the deal file ``path`` (JSON when it ends in ``.json``, else TOML).
    Raises ConfigError, one line naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such deal file") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the deal file: {error.strerror}") from None
    return parse_deal(text, str(path), as_json=path.suffix.lower() == ".json")


def parse_deal(text: str, source: str = "deal file", *, as_json: bool = False) -> Deal:
    """Parse a deal file's text (module docstring). Raises ConfigError naming ``source``
    and the key, round or card: a syntax error, an unknown key, a bad ``first_dealer`` or
    ``seed``, a bad round number, a bad card name, a card twice, a card missing."""
    data = _load(text, source, as_json)
    unknown = [key for key in data if key not in KEYS]
    if unknown:
        raise ConfigError(f"{source}: unknown key {unknown[0]!r}: expected {', '.join(KEYS)}")
    first_dealer = _integer(data, "first_dealer", source, "a seat number >= 0 (0 = the first seat)", low=0)
    seed = _integer(data, "seed", source, "an integer", low=None)
    rules = _rules(data, source)
    rounds = data.get("rounds", {})
    if not isinstance(rounds, dict):
        raise ConfigError(f"{source}: rounds: expected a table of round number = \"52 cards\", got {_show(rounds)}")
    decks: dict[int, tuple[Card, ...]] = {}
    for key, value in rounds.items():
        number = _round_number(key, source)
        if number in decks:
            raise ConfigError(f"{source}: rounds.{key}: round {number} is listed twice")
        decks[number] = parse_deck(value, f"{source}: rounds.{key}")
    if first_dealer is None and not decks:
        raise ConfigError(f"{source}: fixes nothing: give first_dealer and/or a [rounds] table of decks")
    return Deal(first_dealer=first_dealer, seed=seed, decks=dict(sorted(decks.items())), rules=rules, source=source)


def parse_deck(value: object, where: str) -> tuple[Card, ...]:
    """A deck given as ``"AS KH ..."`` (spaces or commas) or ``["AS", "KH", ...]`` -> 52
    Cards. Raises ConfigError prefixed by ``where`` naming the bad, repeated or missing card."""
    if isinstance(value, str):
        names = [name for name in _SEPARATORS.split(value) if name]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        names = list(value)
    else:
        raise ConfigError(f"{where}: expected the 52 cards as a string \"AS KH ...\" or an array of names, got {_show(value)}")
    cards: list[Card] = []
    first_at: dict[Card, int] = {}
    for position, name in enumerate(names):
        try:
            card = parse_card(name)
        except ConfigError:
            raise ConfigError(
                f"{where}: bad card name {name!r} at position {position}: "
                "expected rank 2-9, T, J, Q, K, A then suit S, H, D, C (e.g. 'AS', 'TD')"
            ) from None
        if card in first_at:
            raise ConfigError(f"{where}: card {card} appears twice (positions {first_at[card]} and {position})")
        first_at[card] = position
        cards.append(card)
    if len(cards) != len(CARDS):
        missing = [str(card) for card in CARDS if card not in first_at]
        shown = " ".join(missing[:8]) + (f" ... ({len(missing)} in all)" if len(missing) > 8 else "")
        raise ConfigError(f"{where}: {len(cards)} cards, expected all 52: missing {shown}")
    return tuple(cards)


def deal_from_record(record: GameRecord, source: str = "") -> Deal:
    """The deal of a stored game: its first dealer, seed, rules and the deck of every round
    played, with comment lines naming the game and what each seat was dealt."""
    decks = {number: tuple(parse_card(name) for name in deck) for number, deck in enumerate(record.decks, start=1)}
    seats = ", ".join(f"seat {seat} {name}" for seat, name in enumerate(record.seats))
    rules = Rules.from_dict(dict(record.rules))
    comment = [
        f"Deal of game {record.game_id}" + (f" in {source}" if source else "") + f": {seats}",
        f"rules of that game: {rules.summary()}; play --deal uses them",
        "Replay it:  referee play BOT... --deal THIS_FILE   (a round not listed is shuffled from the seed)",
    ]
    for summary in record.rounds:
        hands = "; ".join(
            f"seat {seat} {' '.join(hand)}" for seat, hand in enumerate(summary.get("hands", [])) if hand
        )
        comment.append(f"round {summary['round']} as played: dealer seat {summary['dealer']}, {summary['hand_size']} cards: {hands}")
    return Deal(
        first_dealer=record.first_dealer, seed=record.seed, decks=decks, rules=rules, source=source or record.game_id, comment=tuple(comment)
    )


def deal_rules(deal: Deal, options: Sequence[str], *, override: bool) -> Rules:
    """The rules to play ``deal`` under: the deal file's own (``[rules]``) with the ``--rule``
    ``options`` that agree with them; a differing option is refused (ConfigError, one line)
    unless ``override``, when it replaces the deal's value (``referee play --deal FILE
    --rule KEY=VALUE [--override-rules]``). A deal file without rules is played under the
    options alone."""
    given = rules_from_options(options)
    if deal.rules is None:
        return given
    keys = [option.partition("=")[0].strip() for option in options]
    differing = [key for key in keys if getattr(given, key) != getattr(deal.rules, key)]
    if differing and not override:
        key = differing[0]
        value = deal.rules.as_dict()[key]
        written = str(value).lower() if isinstance(value, bool) else value
        raise ConfigError(
            f"--rule {next(o for o in options if o.partition('=')[0].strip() == key)}: the deal file {deal.source} "
            f"was played with {key}={written}; drop --rule, or add --override-rules to play it under other rules"
        )
    return dataclasses.replace(deal.rules, **{key: getattr(given, key) for key in keys})


def format_deal(deal: Deal, *, as_json: bool = False) -> str:
    """The TOML text of ``deal`` (JSON when ``as_json``, without the comment), read back
    by :func:`parse_deal` to a Deal with the same first dealer, seed and decks."""
    if as_json:
        data: dict[str, Any] = {}
        if deal.first_dealer is not None:
            data["first_dealer"] = deal.first_dealer
        if deal.seed is not None:
            data["seed"] = deal.seed
        if deal.rules is not None:
            data["rules"] = deal.rules.as_dict()
        data["rounds"] = {str(number): " ".join(map(str, deck)) for number, deck in sorted(deal.decks.items())}
        return json.dumps(data, indent=2) + "\n"
    lines = [f"# {line}" for line in deal.comment]
    if lines:
        lines.append("")
    if deal.first_dealer is not None:
        lines.append(f"first_dealer = {deal.first_dealer}")
    if deal.seed is not None:
        lines.append(f"seed = {deal.seed}")
    if deal.rules is not None:
        lines += ["", "[rules]  # the rules the deal was played under (docs/rules.md §2)"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in deal.rules.as_dict().items()]
    if deal.decks:
        lines += ["", "[rounds]  # round number = its 52 cards in deal order (deck position 0 first)"]
        lines += [f'{number} = "{" ".join(str(card) for card in deck)}"' for number, deck in sorted(deal.decks.items())]
    return "\n".join(lines) + "\n"


def _load(text: str, source: str, as_json: bool) -> dict[str, Any]:
    if as_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ConfigError(f"{source}: line {error.lineno}, column {error.colno}: JSON syntax error: {error.msg}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: expected a JSON object with keys {', '.join(KEYS)}")
        return data
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: {describe_toml(error, text)}") from None


def _integer(data: Mapping[str, Any], key: str, source: str, expected: str, *, low: int | None) -> int | None:
    if key not in data:
        return None
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
        raise ConfigError(f"{source}: {key}: expected {expected}, got {_show(value)}")
    return value


def _round_number(key: object, source: str) -> int:
    text = str(key).strip()
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f"{source}: rounds.{key}: a round number must be an integer >= 1 (e.g. 1 = \"AS KH ...\")")
    return int(text)


class _DealRules(Section):
    """The ``[rules]`` table of a deal file, validated like a config's (keys named ``rules.KEY``)."""

    rules: RulesModel = Field(default=RulesModel(), description="a [rules] table")


def _rules(data: Mapping[str, Any], source: str) -> Rules | None:
    if "rules" not in data:
        return None
    try:
        model = _DealRules.model_validate({"rules": data["rules"]})
    except ValidationError as error:
        raise ConfigError(f"{source}: {describe(error, _DealRules)}") from None
    return Rules(**model.rules.model_dump())


def _show(value: object) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, list, dict)) or value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
