"""How the command line's help writes a default: "(default X)" in the option's own sentence,
one way for every command (cli/help.py turns click's `[default: X]` into it, and the settings
tables' help sentences get it here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def written(value: Any) -> str:
    """A default as the help writes it: 30 not 30.0, a path as typed."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Path):
        return str(value)
    return str(value)


def with_default(text: str, value: Any) -> str:
    """`text` with "(default X)" at the end of its sentence."""
    text = text.rstrip()
    end = "." if text.endswith(".") else ""
    return f"{text.removesuffix('.')} (default {written(value)}){end}"


def help_of(text: str, default: Any) -> str:
    """A setting's help sentence with its default: in place of "{default}", else "(default X)"
    at the end when the default says something (a number, a word) and the sentence does not
    speak of its default already."""
    if "{default}" in text:
        return text.replace("{default}", written(default))
    says = isinstance(default, (int, float, str)) and not isinstance(default, bool) and default != ""
    return with_default(text, default) if says and "default" not in text else text
