"""What a settings field holds, read from its annotation: the one place that checks a TOML
value and parses an environment variable's text, for every settings table alike."""

from __future__ import annotations

import math
from dataclasses import Field
from pathlib import Path
from typing import Any

import click

from webcrawler.errors import UsageError

TRUE_WORDS = ("1", "true", "yes", "on")  # anything else in a boolean variable is false

# annotation (as written under `from __future__ import annotations`) -> kind
KINDS = {
    "int": "integer", "int | None": "integer", "float": "number", "float | None": "number",
    "bool": "boolean", "str": "string", "str | None": "string", "Path": "path",
    "Path | None": "path", "tuple[str, ...]": "list of strings",
}


class ConfigError(UsageError, ValueError):
    """A setting that cannot be used; str(error) is one line naming where it was read."""


class FiniteFloat(click.FloatRange):
    """click's FloatRange that also refuses NaN and infinity (`--delay nan` compares false
    with every bound, so FloatRange lets it through, and the crawl then waits forever)."""

    name = "float"

    def _describe_range(self) -> str:
        """Nothing for an unbounded range (click's own would show `[x<=None]`)."""
        return "" if self.min is None and self.max is None else super()._describe_range()

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def finite(number: float, where: str) -> float:
    """`number`, or ConfigError naming `where` for NaN and infinity."""
    if not math.isfinite(number):
        raise ConfigError(f"{where} must be a finite number, not {number!r}")
    return number


def kind_of(field: Field) -> str:
    """The field's kind, one of KINDS' values (e.g. "integer")."""
    return KINDS[str(field.type)]


def from_toml(field: Field, value: object, where: str) -> object:
    """`value` as read by tomllib, checked against the field's kind (an integer is a fine
    number; true is not an integer); ConfigError naming `where` otherwise."""
    kind = kind_of(field)
    ok = {
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "string": isinstance(value, str),
        "path": isinstance(value, str),
        "list of strings": isinstance(value, list) and all(isinstance(v, str) for v in value),
    }[kind]
    if not ok:
        raise ConfigError(f"{where} must be {_article(kind)}, not {_describe(value)}")
    if kind == "number":
        return finite(float(value), where)  # type: ignore[arg-type]
    if kind == "path":
        return Path(value)  # type: ignore[arg-type]
    if kind == "list of strings":
        return tuple(value)  # type: ignore[arg-type]
    return value


def from_text(field: Field, text: str, variable: str) -> object:
    """An environment variable's text as the field's kind: booleans are 1/true/yes/on,
    lists are separated by white space (as Settings' variables always were)."""
    kind = kind_of(field)
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return finite(float(text), f"{variable}={text!r}")
    except (ValueError, OverflowError) as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{variable}={text!r} is not a valid "
                          f"{'int' if kind == 'integer' else 'float'}") from None
    if kind == "boolean":
        return text.lower() in TRUE_WORDS
    if kind == "path":
        return Path(text)
    if kind == "list of strings":
        return tuple(part for part in text.split() if part)
    return text


def _article(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _describe(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "an array", dict: "a table"}
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    return f"{names.get(type(value), type(value).__name__)} ({shown})"


def plain(value: Any) -> Any:
    """A setting's value as JSON writes it: paths as strings, tuples as lists."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value
