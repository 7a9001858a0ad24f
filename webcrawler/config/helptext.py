"""How the command line's help writes a default: "(default X)" in the option's own sentence,
one way for every command (cli/help.py turns click's `[default: X]` into it)."""

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
