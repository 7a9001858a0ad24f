"""A setting's bounds, checked once: the click type its flag takes, made from its declaration
(settings/declare.py), is also what a value from the config file or an environment variable
must pass, so `agents = 0`, `WEBCRAWLER_SERVE_PER_PAGE=0` and `--agents 0` are refused alike,
each with one line naming the setting and where the value came from."""

from __future__ import annotations

import re
from dataclasses import Field
from pathlib import Path
from typing import Any

import click

from webcrawler.config.kinds import ConfigError, FiniteFloat, kind_of
from webcrawler.settings.declare import fields_of, spec_of

PATHS = {"file": {"dir_okay": False}, "dir": {"file_okay": False},
         "existing file": {"dir_okay": False, "exists": True}}


def click_type(field: Field) -> Any:
    """The click type of the setting's flag (of each value, for a list): its bounds or choices."""
    spec, kind = spec_of(field), kind_of(field)
    if spec.choices and not spec.split:
        return click.Choice(spec.choices)
    if kind == "integer":
        low, high = (None if b is None else int(b) for b in (spec.low, spec.high))
        return click.INT if low is None and high is None else click.IntRange(low, high)
    if kind == "number":
        return FiniteFloat(spec.low, spec.high, min_open=spec.low_open)
    if kind == "path":
        return click.Path(path_type=Path, **PATHS.get(spec.path, {}))
    return click.STRING


def problem(field: Field, value: Any) -> str | None:
    """Why `value` is outside the setting's bounds (click's words), or None when it is not."""
    if value is None:
        return None
    spec, kind = spec_of(field), kind_of(field)
    if kind == "list of strings":
        for item in value:
            if spec.pattern:
                try:
                    re.compile(item)
                except (re.error, RecursionError, OverflowError) as error:
                    return f"{item!r} is not a regular expression ({error})"
            if spec.choices and item not in spec.choices:
                return f"{item}: choose from {', '.join(spec.choices)}"
        return None
    checked = click_type(field)
    if not isinstance(checked, (click.IntRange, click.FloatRange, click.Choice)):
        return None
    try:
        checked.convert(value, None, None)
    except click.BadParameter as error:
        return error.message
    return None


def check(table: type, values: Any, origins: dict[str, Any], section: str) -> None:
    """Every value not a default within its setting's bounds; ConfigError, one line, naming the
    setting and its origin (the file and section, the variable, or the flag) otherwise."""
    for name, field in fields_of(table).items():
        origin = origins[name]
        if origin.source in ("default", "stored"):
            continue
        value = getattr(values, name)
        why = problem(field, value)
        if why is not None:
            raise ConfigError(f"{_where(origin, section, name, value, field)}: {why}")


def _where(origin: Any, section: str, name: str, value: Any, field: Field) -> str:
    listed = kind_of(field) == "list of strings"
    if origin.source == "file":
        return f"{origin.name}: [{section}] {name}" + ("" if listed else f" = {value!r}")
    if origin.source == "environment":
        return origin.name if listed else f"{origin.name}={value!r}"
    return origin.name if listed else f"{origin.name} {value!r}"
