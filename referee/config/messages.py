"""One friendly line from a pydantic ValidationError or a TOML syntax error.

The line names the key path the way it is written in TOML (``league.table_size``), a bot
by its name (``bot "alpha": command``, or ``the 3rd [[bots]] table (command "x.py")``
when it has none), what is expected (the field's ``description``, or the allowed values
of a Literal) and what was given, e.g. ``league.table_size: expected an integer 2-7, got 9``.
A misspelt section is named with the closest known one: ``unknown section [leauge]
(did you mean [league]?)``.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
import typing
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def key_path(loc: tuple[int | str, ...], extra: str = "") -> str:
    """``("bots", 2, "command")`` -> ``bots[2].command``; ``extra`` is appended as a key path."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    if extra:
        text += extra if extra.startswith("[") else (f".{extra}" if text else extra)
    return text


_BOT_KEY = re.compile(r"^bots\[(\d+)\](?:\.(.*)|(\[.*))?$")


def ordinal(number: int) -> str:
    """``1`` -> ``1st``, ``2`` -> ``2nd``, ``11`` -> ``11th``, ``23`` -> ``23rd``."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def bot_label(index: int, table: object) -> str:
    """How a teacher finds the ``index``-th (0-based) ``[[bots]]`` table: ``bot "alpha"`` by
    its name, else ``the 3rd [[bots]] table (command "python x.py")`` (or its address)."""
    if isinstance(table, dict):
        name = table.get("name")
        if isinstance(name, str) and name:
            return f"bot {show(name)}"
        where = f"the {ordinal(index + 1)} [[bots]] table"
        for key in ("command", "address"):
            value = table.get(key)
            if isinstance(value, list) and all(isinstance(part, str) for part in value):
                value = " ".join(value)
            if isinstance(value, str):
                return f"{where} ({key} {show(value)})"
        return where
    return f"bots[{index}]"


def teacher_key(key: str, data: object) -> str:
    """A key path as the teacher wrote it: ``bots[2].command`` -> ``bot "alpha": command``
    when ``data`` (the parsed file) gives bot 2 a name; other keys are kept."""
    match = _BOT_KEY.match(key)
    bots = data.get("bots") if isinstance(data, dict) else None
    if match is None or not isinstance(bots, list) or int(match.group(1)) >= len(bots):
        return key
    index = int(match.group(1))
    label = bot_label(index, bots[index])
    if label.startswith("bots["):
        return key
    rest = match.group(2) or match.group(3)
    return f"{label}: {rest}" if rest else label


def show(value: object) -> str:
    """A value as TOML would write it, shortened: ``"nine"``, ``true``, ``[1, 2]``, ``a table``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (str, int, float)):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _submodel(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _submodel(arg)
        if found is not None:
            return found
    return None


def _walk(root: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[type[BaseModel] | None, FieldInfo | None]:
    """Follow ``loc`` from ``root``: the model reached (None past a leaf) and the last key's field."""
    model: type[BaseModel] | None = root
    info: FieldInfo | None = None
    for part in loc:
        if isinstance(part, int):
            continue
        if model is None or part not in model.model_fields:
            return None, None
        info = model.model_fields[part]
        model = _submodel(info.annotation)
    return model, info


def _expected(info: FieldInfo | None, error: ErrorDetails) -> str:
    ctx = error.get("ctx") or {}
    if error["type"] == "literal_error" and "expected" in ctx:
        return str(ctx["expected"])
    if error["type"] in ("model_type", "dict_type") and error["loc"] and isinstance(error["loc"][-1], int):
        return "a table"
    if info is not None and info.description and not (error["loc"] and isinstance(error["loc"][-1], int)):
        return info.description
    return error["msg"].removeprefix("Input should be ").lower()


def _has_sections(root: type[BaseModel]) -> bool:
    return any(_submodel(info.annotation) is not None for info in root.model_fields.values())


def _unknown_section(root: type[BaseModel], name: str, value: object) -> str:
    """A top-level table nobody reads, e.g. ``[leauge]`` or ``[[bot]]``, with the nearest section."""
    def written(field: str) -> str:
        info = root.model_fields[field]
        return f"[[{field}]]" if typing.get_origin(info.annotation) is list else f"[{field}]"

    is_array = isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)
    text = f"unknown section [[{name}]]" if is_array else f"unknown section [{name}]"
    sections = [field for field in root.model_fields if _submodel(root.model_fields[field].annotation) is not None]
    close = difflib.get_close_matches(name, sections, n=1, cutoff=0.6)
    if close:
        return f"{text} (did you mean {written(close[0])}?)"
    return f"{text} (known sections: {', '.join(written(field) for field in sections)})"


def _unknown_key(root: type[BaseModel], loc: tuple[int | str, ...], data: object = None) -> str:
    if len(loc) > 2 and loc[0] == "bots" and isinstance(loc[1], int):
        text = f"{teacher_key(key_path(loc[:2]), data)}: unknown key '{key_path(loc[2:])}'"
    else:
        text = f"unknown key '{key_path(loc)}'"
    model, _ = _walk(root, loc[:-1])
    if model is None:
        return text
    known = list(model.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    if close:
        return f"{text} (did you mean '{close[0]}'?)"
    return f"{text} (known keys: {', '.join(known)})"


def _first(errors: list[ErrorDetails]) -> ErrorDetails:
    """The error to report: an unknown top-level table first (a misspelt ``[leauge]`` also
    makes ``league`` missing, and the misspelling is the cause), else the first."""
    for error in errors:
        if error["type"] == "extra_forbidden" and len(error["loc"]) == 1 and isinstance(error["input"], (dict, list)):
            return error
    missing = {tuple(error["loc"]) for error in errors if error["type"] == "missing"}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] == "extra_forbidden" and any(
            place[:-1] == loc[:-1] and difflib.get_close_matches(str(loc[-1]), [str(place[-1])], cutoff=0.6) for place in missing
        ):
            return error  # ``nmae = "x"``: the misspelling, not the missing ``name``
    return errors[0]


def describe(error: ValidationError, root: type[BaseModel], data: object = None) -> str:
    """The first error of ``error`` (raised validating ``data`` as ``root``) as one line
    without the file name. ``data`` (the parsed file) lets a bot be named by its name."""
    first = _first(error.errors(include_url=False))
    loc = tuple(first["loc"])
    kind = first["type"]
    ctx = first.get("ctx") or {}
    if kind == "config":
        if not (loc or ctx.get("key")):
            return first["msg"]
        return f"{teacher_key(key_path(loc, str(ctx.get('key', ''))), data)}: {first['msg']}"
    if kind == "extra_forbidden":
        if len(loc) == 1 and isinstance(first["input"], (dict, list)) and _has_sections(root):
            return _unknown_section(root, str(loc[0]), first["input"])
        return _unknown_key(root, loc, data)
    _, info = _walk(root, loc)
    expected = _expected(info, first)
    key = teacher_key(key_path(loc), data)
    if kind == "missing":
        return f"{key}: missing, expected {expected}"
    given: Any = first["input"]
    if kind in ("too_short", "too_long") and isinstance(given, list) and given:
        return f"{key}: expected {expected}, got {len(given)}"
    return f"{key}: expected {expected}, got {show(given)}"


def describe_toml(error: tomllib.TOMLDecodeError, text: str) -> str:
    """``line 3, column 8: TOML syntax error: Invalid value: seed = = 7`` (the line quoted)."""
    message = str(error)
    lines = text.splitlines()
    match = _TOML_AT.search(message)
    if match is not None:
        line, column = int(match.group(1)), int(match.group(2))
        message = message[: match.start()]
    elif message.endswith("(at end of document)"):
        line, column = max(1, len(lines)), len(lines[-1]) + 1 if lines else 1
        message = message.removesuffix("(at end of document)").rstrip()
    else:
        return f"TOML syntax error: {message}"
    quoted = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    where = f"line {line}, column {column}: TOML syntax error: {message}"
    return f"{where}: {quoted[:80]}" if quoted else where
