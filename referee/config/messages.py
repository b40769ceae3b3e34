"""One friendly line from a pydantic ValidationError or a TOML syntax error.

The line names the key path the way it is written in TOML (``league.table_size``,
``bots[2].command``), what is expected (the field's ``description``, or the allowed
values of a Literal) and what was given, e.g.
``league.table_size: expected an integer 2-7, got 9``.
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


def _unknown_key(root: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    text = f"unknown key '{key_path(loc)}'"
    model, _ = _walk(root, loc[:-1])
    if model is None:
        return text
    known = list(model.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    if close:
        return f"{text} (did you mean '{close[0]}'?)"
    return f"{text} (known keys: {', '.join(known)})"


def describe(error: ValidationError, root: type[BaseModel]) -> str:
    """The first error of ``error`` (raised validating ``root``) as one line without the file name."""
    first = error.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    kind = first["type"]
    ctx = first.get("ctx") or {}
    if kind == "config":
        return f"{key_path(loc, str(ctx.get('key', '')))}: {first['msg']}" if loc or ctx.get("key") else first["msg"]
    if kind == "extra_forbidden":
        return _unknown_key(root, loc)
    _, info = _walk(root, loc)
    expected = _expected(info, first)
    key = key_path(loc)
    if kind == "missing":
        return f"{key}: missing, expected {expected}"
    given: Any = first["input"]
    if kind in ("too_short", "too_long") and isinstance(given, list):
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
